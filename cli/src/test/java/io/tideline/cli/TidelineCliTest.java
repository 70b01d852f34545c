package io.tideline.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuAssignment;
import io.tideline.events.Lane;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaSegment;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.RuleTraceEntry;
import io.tideline.events.Verdict;
import io.tideline.events.Victim;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.serde.ContractSubjects;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.TidelineInfra;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI against a real broker and registry: what a user types and what they see. */
class TidelineCliTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");
  static TidelineInfra infra;

  @TempDir Path dir;

  /** What one invocation printed, and its exit code. */
  record Run(int code, String out, String err) {}

  @BeforeAll
  static void start() {
    infra = TidelineInfra.start();
    List<String> topics = new ArrayList<>();
    for (TopicSpec t : TopicCatalogue.all()) {
      topics.add(t.name() + ":" + Math.min(3, t.partitions()));
    }
    infra.broker().createTopics(topics.toArray(String[]::new));
    // as `./tideline up` does: the registrar publishes the contracts, the CLI's serdes only
    // look them up (auto-register off, ADR 0027)
    Run registered = schemasRegister();
    assertThat(registered.code()).as(registered.err()).isZero();
  }

  @AfterAll
  static void stop() {
    infra.close();
  }

  @Test
  void shouldSubmitAValidJobFileAsAnAvroEvent() throws Exception {
    Path file = write("job.yaml", """
        jobId: job-cli-1
        submittedAt: 2026-11-02T14:00:00Z
        tenant: search
        team: ranking
        user: carol
        workloadClass: TRAINING
        preemptible: true
        resources:
          gpuCount: 16
          gangSize: 16
          nodes: 2
          allowedGpuModels: [H100]
        checkpoint:
          stateSizeGb: 80
          storageBandwidthGbPerSec: 2
          writeShards: 8
          intervalSeconds: 600
        contacts:
          email: carol@example.com
        """);

    Run run = cli("submit", file.toString());

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("submitted job-cli-1 (TRAINING, 16 GPUs) to jobs.submitted-");
    Run tail = cli("tail", "jobs.submitted", "-n", "0");
    assertThat(tail.out()).contains("\"jobId\": \"job-cli-1\"")
        .contains("\"submittedAt\": \"2026-11-02T14:00:00Z\"")
        .contains("\"allowedGpuModels\": [\"H100\"]");
  }

  /** Issue #16 finding 7: a fresh registry serves every topic's value subject once this ran. */
  @Test
  void shouldRegisterEveryContractSelfContainedAndKeepTheIdsWhenRunAgain() throws Exception {
    Run first = schemasRegister();
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).contains("jobs.submitted-value").contains("notify.directory-value")
        .contains("registered " + ContractSubjects.all().size() + " subjects")
        .contains("registry identity");
    String latest = infra.registry().get(
        "/apis/ccompat/v7/subjects/jobs.submitted-value/versions/latest");
    assertThat(latest).doesNotContain("\"references\":[{");
    Run again = schemasRegister();
    assertThat(again.out().lines().filter(l -> l.contains("-value")).toList())
        .isEqualTo(first.out().lines().filter(l -> l.contains("-value")).toList());
  }

  @Test
  void shouldRefuseAnInvalidJobNamingEveryFieldAtFault() throws Exception {
    Path file = write("bad.yaml", """
        jobId: job-bad
        tenant: search
        team: ranking
        user: carol
        workloadClass: TRAINNG
        preemptible: yes please
        gpu: 8
        resources:
          gpuCount: 8
        contacts: {}
        """);

    Run run = cli("submit", file.toString());

    assertThat(run.code()).isEqualTo(SubmitCommand.INVALID);
    assertThat(run.err())
        .contains("workloadClass: must be one of [ONLINE_INFERENCE, BATCH_INFERENCE, TRAINING, EXPLORATORY_TRAINING]")
        .contains("preemptible: expected true or false")
        .contains("gpu: unknown field");
    assertThat(run.out()).doesNotContain("submitted");
  }

  @Test
  void shouldRefuseImpossibleValuesWithTheCoresReason() throws Exception {
    Path file = write("zero.yaml", """
        jobId: job-zero
        tenant: search
        team: ranking
        user: carol
        workloadClass: TRAINING
        preemptible: true
        resources: {gpuCount: 0}
        contacts: {}
        """);

    Run run = cli("submit", "--dry-run", file.toString());

    assertThat(run.code()).isEqualTo(SubmitCommand.INVALID);
    assertThat(run.err()).contains("resources.gpuCount: is 0, so each worker must ask CPU, memory or an extended resource");
  }

  @Test
  void shouldExplainAJobsWholeTrailWithRuleTraces() {
    String job = "job-victim-7";
    send(TopicCatalogue.JOBS_SUBMITTED, job, JobSubmissions.training(job).user("dave").at(T0).build());
    send(TopicCatalogue.QUOTA_VERDICTS, job, QuotaVerdict.newBuilder().setJobId(job)
        .setTenant("search").setQueue("acme/search/ranking/training").setDecidedAt(T0.plusSeconds(1))
        .setVerdict(Verdict.SHARED).setGpus(8).setPreemptible(true).setPreemptionRightGranted(false)
        .setReason("guarantee used up; borrowing 8 of 32 from the shared pool")
        .setPolicyVersion("quota-rules-2").build());
    send(TopicCatalogue.PLACEMENT_DECISIONS, "default", PlacementDecision.newBuilder()
        .setDecisionId("p-1").setCluster("default").setJobId(job).setDecidedAt(T0.plusSeconds(2))
        .setOutcome(PlacementOutcome.PLACED)
        .setAssignments(List.of(GpuAssignment.newBuilder().setNodeId("n1").setGpuIndex(0).build()))
        .setLedgerVersion(7).setPolicyVersion("placement-1").build());
    send(TopicCatalogue.PREEMPTION_DECISIONS, "default", PreemptionDecision.newBuilder()
        .setDecisionId("d-1").setRequestId("r-1").setCluster("default").setPreemptorJobId("online-9")
        .setDecidedAt(T0.plusSeconds(3600)).setOutcome(PreemptionOutcome.PREEMPT).setPreemptorScore(20)
        .setVictims(List.of(Victim.newBuilder().setJobId(job).setTenant("search").setUser("dave")
            .setScore(4).setGpus(8).setCostGpuHours(0.9).setQueueBoost(1800).build()))
        .setTotalCostGpuHours(0.9).setGainGpuHours(2.4).setLedgerVersion(9).setPolicyVersion("preemption-v1")
        .setTrace(List.of(RuleTraceEntry.newBuilder().setSubject(job).setRule("score-threshold")
            .setOutcome("TAKEN").setDetail("score ratio 5.00 >= 1.50").build()))
        .build());

    Run run = cli("explain", job);

    assertThat(run.code()).as(run.err()).isZero();
    String out = run.out();
    assertThat(out).contains("Decision trail of job-victim-7 (4 records)")
        .contains("verdict=SHARED").contains("outcome=PLACED").contains("gpus on [n1/0]")
        .contains("preemptorJobId=online-9").contains("victims=[job-victim-7]")
        .contains("score ratio 5.00 >= 1.50");
    assertThat(out.indexOf("jobs.submitted")).isLessThan(out.indexOf("quota.verdicts"));
    assertThat(out.indexOf("placement.decisions")).isLessThan(out.indexOf("preemption.decisions"));
  }

  @Test
  void shouldShowTheQueueWithoutJobsThatLeftIt() {
    send(TopicCatalogue.PLACEMENT_QUEUE, "q-2", queued("q-2", 2));
    send(TopicCatalogue.PLACEMENT_QUEUE, "q-1", queued("q-1", 1));
    send(TopicCatalogue.PLACEMENT_QUEUE, "q-gone", queued("q-gone", 3));
    send(TopicCatalogue.PLACEMENT_QUEUE, "q-gone", null);

    Run run = cli("queue");

    assertThat(run.out()).contains("q-1").contains("q-2").doesNotContain("q-gone");
    assertThat(run.out().indexOf("q-1")).isLessThan(run.out().indexOf("q-2"));
  }

  @Test
  void shouldShowATenantsQuota() {
    send(TopicCatalogue.QUOTA_STATE, "acme/vision/train", QuotaState.newBuilder()
        .setQueue("acme/vision/train").setTenant("vision").setSegment(QuotaSegment.OFFLINE_GUARANTEED)
        .setGuaranteedGpus(64).setBorrowCapGpus(32).setLendingLimitGpus(64).setUsedGuaranteedGpus(40)
        .setUsedBorrowedGpus(8).setFairShareUsage(123.5).setUpdatedAt(T0).setPolicyVersion("q1").build());

    Run run = cli("quota", "vision");

    assertThat(run.code()).isZero();
    assertThat(run.out()).contains("acme/vision/train").contains("OFFLINE_GUARANTEED").contains("64.00");
    assertThat(cli("quota", "nobody").code()).isEqualTo(1);
  }

  @Test
  void shouldListAUsersJobs() {
    send(TopicCatalogue.JOBS_SUBMITTED, "erin-1", JobSubmissions.training("erin-1").user("erin").at(T0).build());

    Run run = cli("jobs", "--user", "erin");

    assertThat(run.out()).contains("erin-1").contains("TRAINING").contains("WAITING");
  }

  private static QueuePosition queued(String job, int position) {
    return QueuePosition.newBuilder().setJobId(job).setCluster("default").setLane(Lane.TRAINING)
        .setPosition(position).setEstimatedStart(T0.plusSeconds(600L * position))
        .setEstimateBasis("queue ahead").setUpdatedAt(T0).build();
  }

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }

  private static Run schemasRegister() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TidelineCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
        .execute("schemas", "register", "--registry=" + infra.registry().url());
    return new Run(code, out.toString(), err.toString());
  }

  private static Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of(args));
    all.add(1, "--bootstrap=" + infra.broker().bootstrapServers());
    all.add(1, "--registry=" + infra.registry().url());
    int code = TidelineCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
        .execute(all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  private static void send(String topic, String key, Object value) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<String, Object>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(AvroSerdes.serdeConfig(infra.registry().url(), true)))) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
