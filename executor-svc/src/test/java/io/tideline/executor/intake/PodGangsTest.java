package io.tideline.executor.intake;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.tideline.events.WorkloadClass;
import io.tideline.executor.ExecutorSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pods → the job they ask for: scenarios from hand-built pods, no API server needed. */
class PodGangsTest {

  static final PodGangs GANGS = new PodGangs(ExecutorSettings.defaults("c1", "t", "tideline"));
  static final Map<String, String> NS = Map.of("tideline.io/tenant", "research",
      "tideline.io/team", "llm");

  static PodBuilder pod(String name, String created, int gpus) {
    return new PodBuilder().withNewMetadata().withNamespace("ml").withName(name)
        .withUid(name + "-uid").withCreationTimestamp(created).endMetadata()
        .withNewSpec().withSchedulerName("tideline").addNewContainer().withName("c")
        .withNewResources().addToLimits(gpus > 0 ? Map.of("nvidia.com/gpu",
            new Quantity(Integer.toString(gpus))) : Map.of()).endResources().endContainer()
        .endSpec();
  }

  static Pod member(String name, String created, int total) {
    return pod(name, created, 8).editMetadata()
        .addToLabels("kueue.x-k8s.io/pod-group-name", "llm")
        .addToAnnotations("kueue.x-k8s.io/pod-group-total-count", Integer.toString(total))
        .addToAnnotations("tideline.io/checkpoint-state-gb", "80")
        .addToAnnotations("tideline.io/checkpoint-bandwidth-gbps", "2")
        .addToAnnotations("tideline.io/checkpoint-interval-seconds", "600")
        .endMetadata().build();
  }

  @Test
  void shouldAskPerWorkerTheCpuMemoryAndRdmaNicsOfItsLargestPod() {
    // two containers' requests add up; an init container counts where it asks more; a limit
    // stands for a missing request; the gang's largest pod is what every worker is charged
    Pod a = new PodBuilder(member("llm-0", "2026-12-01T10:00:00Z", 2)).editSpec()
        .editFirstContainer().editResources()
        .addToRequests(Map.of("cpu", new Quantity("7500m"), "memory", new Quantity("64Gi")))
        .addToLimits(Map.of("rdma/hca", new Quantity("1"))).endResources().endContainer()
        .addNewContainer().withName("sidecar").withNewResources()
        .addToRequests(Map.of("cpu", new Quantity("0.5"), "memory", new Quantity("1Gi"),
            "ephemeral-storage", new Quantity("10Gi"))).endResources().endContainer()
        .addNewInitContainer().withName("fetch").withNewResources()
        .addToRequests(Map.of("memory", new Quantity("100Gi"))).endResources()
        .endInitContainer().endSpec().build();
    Pod b = new PodBuilder(member("llm-1", "2026-12-01T10:00:03Z", 2)).editSpec()
        .editFirstContainer().editResources()
        .addToRequests(Map.of("cpu", new Quantity("10"))).endResources().endContainer()
        .endSpec().build();

    var each = ((PodGangs.Ready) GANGS.gang("ml/llm", List.of(a, b), NS)).job().getResources()
        .getPerWorker();

    assertThat(each.getCpuMillis()).isEqualTo(10_000L);
    assertThat(each.getMemoryBytes()).isEqualTo(100L << 30);
    assertThat(each.getExtended()).isEqualTo(Map.of("rdma/hca", 1L));
  }

  @Test
  void shouldAskNothingBesidesGpusWhenPodsRequestNothing() {
    Pod a = member("llm-0", "2026-12-01T10:00:00Z", 1);
    var each = ((PodGangs.Ready) GANGS.gang("ml/llm", List.of(a), NS)).job().getResources()
        .getPerWorker();
    assertThat(each.getCpuMillis()).isZero();
    assertThat(each.getMemoryBytes()).isZero();
    assertThat(each.getExtended()).isEmpty();
  }

  @Test
  void shouldWaitUntilTheWholeGangIsThere() {
    Pod one = member("llm-0", "2026-12-01T10:00:00Z", 2);
    assertThat(GANGS.gang("ml/llm", List.of(one), NS))
        .isEqualTo(new PodGangs.Incomplete("ml/llm", 1, 2));
  }

  @Test
  void shouldSubmitTwoEightGpuPodsAsOneSixteenGpuGangOfTwoWorkers() {
    Pod a = member("llm-0", "2026-12-01T10:00:00Z", 2);
    Pod b = member("llm-1", "2026-12-01T10:00:03Z", 2);
    PodGangs.Ready r = (PodGangs.Ready) GANGS.gang("ml/llm", List.of(b, a), NS);
    var job = r.job();
    assertThat(job.getJobId()).isEqualTo("ml/llm");
    assertThat(job.getResources().getGpuCount()).isEqualTo(16);
    assertThat(job.getResources().getGangSize()).isEqualTo(2);
    assertThat(job.getSubmittedAt()).as("when the gang became whole")
        .isEqualTo(java.time.Instant.parse("2026-12-01T10:00:03Z"));
    assertThat(job.getTenant()).isEqualTo("research");
    assertThat(job.getTeam()).isEqualTo("llm");
    assertThat(job.getWorkloadClass()).isEqualTo(WorkloadClass.TRAINING);
    assertThat(job.getPreemptible()).isTrue();
    assertThat(job.getCheckpoint().getStateSizeGb()).isEqualTo(80.0);
    assertThat(r.pods()).extracting(p -> p.getMetadata().getName())
        .containsExactly("llm-0", "llm-1");
  }

  @Test
  void shouldReadAFractionalInferenceInstanceFromItsAnnotations() {
    Pod p = pod("ranker-a", "2026-12-01T10:00:00Z", 0).editMetadata()
        .addToAnnotations("tideline.io/gpu-fraction", "0.25")
        .addToAnnotations("tideline.io/workload-class", "online-inference")
        .addToAnnotations("tideline.io/service", "search-ranker").endMetadata()
        .editSpec().withNodeSelector(Map.of("nvidia.com/gpu.product", "NVIDIA-L4")).endSpec()
        .build();
    var job = ((PodGangs.Ready) GANGS.gang("ml/ranker-a", List.of(p), NS)).job();
    assertThat(job.getResources().getGpuCount()).isEqualTo(1);
    assertThat(job.getResources().getGpuShare()).isEqualTo(0.25);
    assertThat(job.getResources().getAllowedGpuModels()).containsExactly("NVIDIA-L4");
    assertThat(job.getPreemptible()).as("online inference is not preemptible by default")
        .isFalse();
    assertThat(job.getServiceId()).isEqualTo("search-ranker");
  }

  @Test
  void shouldRefuseAGangWhosePodsAskForDifferentGpuCounts() {
    Pod a = member("llm-0", "2026-12-01T10:00:00Z", 2);
    Pod b = new PodBuilder(member("llm-1", "2026-12-01T10:00:00Z", 2)).editSpec()
        .editFirstContainer().editResources()
        .addToLimits("nvidia.com/gpu", new Quantity("4")).endResources().endContainer()
        .endSpec().build();
    var bad = (PodGangs.Invalid) GANGS.gang("ml/llm", List.of(a, b), NS);
    assertThat(bad.reason()).contains("same GPUs").contains("asks 8").contains("asks 4");
    assertThat(bad.culprit().getMetadata().getName()).isEqualTo("llm-1");
  }

  @Test
  void shouldRefuseAGangLargerThanItsDeclaredCount() {
    var bad = (PodGangs.Invalid) GANGS.gang("ml/llm", List.of(
        member("llm-0", "2026-12-01T10:00:00Z", 1), member("llm-1", "2026-12-01T10:00:00Z", 1)),
        NS);
    assertThat(bad.reason()).contains("has 2 pods").contains("says 1");
  }

  @Test
  void shouldNameTheAnnotationAndTheValueOfAMalformedDeclaration() {
    Pod p = pod("x", "2026-12-01T10:00:00Z", 1).editMetadata()
        .addToAnnotations("tideline.io/preemptible", "yes").endMetadata().build();
    var bad = (PodGangs.Invalid) GANGS.gang("ml/x", List.of(p), NS);
    assertThat(bad.reason()).isEqualTo(
        "pod x: tideline.io/preemptible must be true or false, got 'yes'");
  }

  @Test
  void shouldRefuseAPodAskingForNoGpuAndNothingElse() {
    var bad = (PodGangs.Invalid) GANGS.gang("ml/x", List.of(pod("x", "2026-12-01T10:00:00Z", 0)
        .build()), NS);
    assertThat(bad.reason()).contains("asks for no GPU and no CPU, memory or extended resource");
  }

  @Test
  void shouldSubmitAPodWithoutGpusThatAsksCpuAndMemoryAsAGpulessJob() {
    Pod etl = pod("etl", "2026-12-01T10:00:00Z", 0).editSpec().editFirstContainer()
        .editResources().addToRequests(Map.of("cpu", new Quantity("6"), "memory",
            new Quantity("24Gi"))).endResources().endContainer().endSpec().build();

    var ready = (PodGangs.Ready) GANGS.gang("ml/etl", List.of(etl), NS);

    var r = ready.job().getResources();
    assertThat(r.getGpuCount()).isZero();
    assertThat(r.getGangSize()).isEqualTo(1);
    assertThat(r.getPerWorker().getCpuMillis()).isEqualTo(6_000);
    assertThat(r.getPerWorker().getMemoryBytes()).isEqualTo(24L << 30);
  }

  @Test
  void shouldRefuseAFractionTogetherWithWholeGpus() {
    Pod p = pod("x", "2026-12-01T10:00:00Z", 1).editMetadata()
        .addToAnnotations("tideline.io/gpu-fraction", "0.5").endMetadata().build();
    var bad = (PodGangs.Invalid) GANGS.gang("ml/x", List.of(p), NS);
    assertThat(bad.reason()).contains("one or the other");
  }
}
