package io.tideline.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.JobSubmitted;
import io.tideline.executor.kube.KubeApiServer;
import io.tideline.executor.kube.KubeApiServerResource;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.ServiceHealthContract;
import io.tideline.testkit.TidelineInfra;
import io.tideline.testkit.TidelineInfraResource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * executor-svc starts against a real broker and registry and reports healthy with metrics, like
 * every service; here with the executor on, against a real kube-apiserver as the service account
 * of {@code deploy/k8s}: the application's own wiring (config, fabric8 client, Kafka clients)
 * takes the cluster's lease and turns a pod into a submission.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = KubeApiServerResource.class, restrictToAnnotatedClass = true)
class ServiceHealthTest extends ServiceHealthContract {

  @Test
  void shouldLeadTheClusterAndSubmitAPodWhenTheExecutorIsOn() {
    KubeApiServer kube = KubeApiServerResource.server();
    KubernetesClient admin = kube.admin();
    ExecutorHarness.await("the application's executor holds the lease", () -> {
      Lease l = admin.leases().inNamespace("tideline").withName("tideline-executor-default")
          .get();
      return l != null && KubeApiServerResource.IDENTITY.equals(l.getSpec().getHolderIdentity());
    });
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("app")
        .addToLabels("tideline.io/tenant", "search").addToLabels("tideline.io/team", "ranking")
        .endMetadata().build()).create();
    admin.pods().resource(new PodBuilder().withNewMetadata().withNamespace("app")
        .withName("solo").endMetadata().withNewSpec().withSchedulerName("tideline")
        .addNewContainer().withName("trainer").withImage("trainer:1").withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity("2")).addToRequests("cpu", new Quantity("1"))
        .endResources().endContainer()
        .endSpec().build()).create();
    ExecutorHarness.await("the application's submission of app/solo",
        () -> !submissions("app/solo").isEmpty());
    JobSubmitted job = submissions("app/solo").get(0);
    assertThat(job.getResources().getGpuCount()).isEqualTo(2);
    assertThat(job.getTenant()).isEqualTo("search");
  }

  private static List<JobSubmitted> submissions(String jobId) {
    TidelineInfra infra = TidelineInfraResource.infra();
    Map<String, Object> serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("health-reader"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<JobSubmitted> out = new ArrayList<>();
    try (var c = new KafkaConsumer<String, Object>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde))) {
      c.subscribe(List.of(TopicCatalogue.JOBS_SUBMITTED));
      int idle = 0;
      while (idle < 3) {
        var records = c.poll(Duration.ofMillis(500));
        idle = records.isEmpty() ? idle + 1 : 0;
        records.forEach(r -> {
          if (r.value() instanceof JobSubmitted j && j.getJobId().equals(jobId)) {
            out.add(j);
          }
        });
      }
    }
    return out;
  }
}
