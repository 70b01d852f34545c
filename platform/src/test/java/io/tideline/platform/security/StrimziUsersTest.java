package io.tideline.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tideline.platform.security.AclRule.Pattern;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Strimzi KafkaUsers of deploy/k8s are the generated ACL plan, exactly (issue #18 point 6). */
class StrimziUsersTest {

  private static final Path COMMITTED = Path.of("..", "deploy", "k8s", "kafka", "users.yaml");
  private static final AclPlan PLAN = AclPlan.fromCatalogue();

  /** One ACL of a KafkaUser as the YAML says it, comparable with a rule of the plan. */
  record Grant(String user, String type, String name, String pattern, String operation) {}

  private static Map<String, JsonNode> users(String yaml) throws IOException {
    Map<String, JsonNode> users = new HashMap<>();
    try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class)
        .readValues(yaml)) {
      while (docs.hasNext()) {
        JsonNode doc = docs.next();
        assertThat(doc.path("kind").asText()).isEqualTo("KafkaUser");
        assertThat(doc.at("/metadata/labels/strimzi.io~1cluster").asText())
            .isEqualTo(StrimziUsers.CLUSTER);
        assertThat(doc.at("/spec/authentication/type").asText()).isEqualTo("scram-sha-512");
        assertThat(doc.at("/spec/authorization/type").asText()).isEqualTo("simple");
        users.put(doc.at("/metadata/name").asText(), doc);
      }
    }
    return users;
  }

  private static List<Grant> grants(String user, JsonNode doc) {
    List<Grant> out = new ArrayList<>();
    for (JsonNode acl : doc.at("/spec/authorization/acls")) {
      assertThat(acl.path("host").asText()).isEqualTo("*");
      for (JsonNode op : acl.path("operations")) {
        out.add(new Grant(user, acl.at("/resource/type").asText(),
            acl.at("/resource/name").asText(), acl.at("/resource/patternType").asText(),
            op.asText()));
      }
    }
    return out;
  }

  private static Grant expected(AclRule r) {
    String type = r.resource() == AclRule.Resource.TOPIC ? "topic"
        : r.resource() == AclRule.Resource.GROUP ? "group" : "transactionalId";
    String op = strimziOperation(r.operation());
    return new Grant(r.identity().user(), type, r.name(),
        r.pattern() == Pattern.LITERAL ? "literal" : "prefix", op);
  }

  private static String strimziOperation(AclRule.Operation op) {
    String s = op.name().toLowerCase().replace("_", "");
    return s.equals("describeconfigs") ? "DescribeConfigs"
        : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  @Test
  void shouldGiveEveryIdentityOneScramUserWithExactlyItsGeneratedAcls() throws IOException {
    Map<String, JsonNode> users = users(StrimziUsers.render(PLAN));

    assertThat(users).hasSize(Identity.values().length);
    for (Identity identity : Identity.values()) {
      List<Grant> wanted = PLAN.of(identity).stream().map(StrimziUsersTest::expected).toList();
      assertThat(grants(identity.user(), users.get(identity.user())))
          .as(identity.user()).containsExactlyElementsOf(wanted);
    }
  }

  @Test
  void shouldLetTheSubmitterUserWriteJobsSubmittedAndNothingElse() throws IOException {
    List<Grant> submitter = grants(Identity.SUBMITTER.user(),
        users(StrimziUsers.render(PLAN)).get(Identity.SUBMITTER.user()));

    assertThat(submitter).filteredOn(g -> g.operation().equals("Write"))
        .extracting(Grant::name).containsExactly("jobs.submitted");
    assertThat(submitter).extracting(Grant::operation).doesNotContain("All");
  }

  @Test
  void shouldKeepTheCommittedKafkaUsersOfDeployK8sInStepWithTheCatalogue() throws IOException {
    String committed = Files.readString(COMMITTED, StandardCharsets.UTF_8);

    assertThat(committed)
        .as("%s is stale: run ./tideline acls strimzi > deploy/k8s/kafka/users.yaml", COMMITTED)
        .isEqualTo(StrimziUsers.render(PLAN));
  }

  @Test
  void shouldFindTheCommittedUsersStaleOnceTheCatalogueGivesAServiceANewInput() throws IOException {
    List<TopicSpec> topics = new ArrayList<>(TopicCatalogue.all());
    topics.add(new TopicSpec("jobs.audit", 1, false, false, "job id", "JobSubmitted",
        "placement -> notifier"));
    String committed = Files.readString(COMMITTED, StandardCharsets.UTF_8);

    String rendered = StrimziUsers.render(AclPlan.of(topics));

    assertThat(rendered).isNotEqualTo(committed).contains("name: jobs.audit");
    assertThat(grants("notifier-svc", users(rendered).get("notifier-svc")))
        .contains(new Grant("notifier-svc", "topic", "jobs.audit", "literal", "Read"));
  }
}
