package io.tideline.core.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubmissionCheckTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  final SubmissionCheck check = new SubmissionCheck(SubmissionLimits.DEFAULTS);

  static JobRequest training(int gpus, double share, int gang, int nodes) {
    return new JobRequest("job-1", "search", "ranking", "alice", WorkloadClass.TRAINING, false,
        true, false, null, gpus, share, gang, nodes, List.of("H100"), T0, null, 3600,
        new CheckpointProfile(80, 2, 1, 600), 100);
  }

  @Test
  void shouldAcceptAWellFormedEightGpuGang() {
    assertThat(check.violations(training(8, 1.0, 8, 1))).isEmpty();
  }

  @Test
  void shouldAcceptAQuarterGpuInferenceInstance() {
    JobRequest job = new JobRequest("inf-1", "search", "serving", "bob",
        WorkloadClass.ONLINE_INFERENCE, false, false, true, "ranker", 1, 0.25, 1, 0, List.of(),
        T0, null, 0, null, 0);
    assertThat(check.violations(job)).isEmpty();
    assertThat(job.gpuDemand()).isEqualTo(0.25);
  }

  @Test
  void shouldRejectNegativeGpusAndAJobWithoutGpusThatAsksNothingElse() {
    assertThat(check.violations(training(0, 1.0, 1, 0)))
        .anySatisfy(v -> assertThat(v.toString()).contains("resources.gpuCount")
            .contains("each worker must ask CPU, memory or an extended resource"));
    assertThat(check.violations(training(-4, 1.0, 1, 0)))
        .anySatisfy(v -> assertThat(v.toString()).contains("must not be negative, got -4"));
  }

  @Test
  void shouldAcceptAJobWithoutGpusWhosePodsAskCpuAndMemory() {
    JobRequest job = training(0, 1.0, 4, 0).withResources(Resources.of(4_000, 16L << 30));

    assertThat(check.violations(job)).isEmpty();
    assertThat(job.gpuDemand()).isZero();
  }

  @Test
  void shouldRejectANodeCountOrAShareOnAJobWithoutGpus() {
    assertThat(check.violations(training(0, 1.0, 4, 2).withResources(Resources.of(4_000, 0))))
        .extracting(Violation::field).containsExactly("resources.nodes");
    assertThat(check.violations(training(0, 0.5, 1, 0).withResources(Resources.of(4_000, 0))))
        .extracting(Violation::field).containsExactly("resources.gpuShare");
  }

  @Test
  void shouldRejectAFractionalShareOnAMultiGpuJob() {
    assertThat(check.violations(training(4, 0.5, 4, 0)))
        .extracting(Violation::field).containsExactly("resources.gpuShare");
  }

  @Test
  void shouldRejectAGangLargerThanItsGpus() {
    assertThat(check.violations(training(4, 1.0, 8, 0)))
        .extracting(Violation::field).containsExactly("resources.gangSize");
  }

  @Test
  void shouldRequireAServiceForOnlineInference() {
    JobRequest job = new JobRequest("inf-2", "search", "serving", "bob",
        WorkloadClass.ONLINE_INFERENCE, false, false, true, " ", 1, 1.0, 1, 0, List.of(), T0,
        null, 0, null, 0);
    assertThat(check.violations(job)).extracting(Violation::field).containsExactly("serviceId");
  }

  @Test
  void shouldRejectADeadlineBeforeSubmission() {
    JobRequest job = new JobRequest("job-2", "search", "ranking", "alice",
        WorkloadClass.TRAINING, false, true, false, null, 8, 1.0, 8, 1, List.of(), T0,
        T0.minusSeconds(1), 0, null, 0);
    assertThat(check.violations(job)).extracting(Violation::field).containsExactly("deadline");
  }

  @Test
  void shouldRejectAnImpossibleCheckpointProfile() {
    JobRequest job = new JobRequest("job-3", "search", "ranking", "alice",
        WorkloadClass.TRAINING, false, true, false, null, 8, 1.0, 8, 1, List.of(), T0, null, 0,
        new CheckpointProfile(80, 0, 0, 600), 0);
    assertThat(check.violations(job)).extracting(Violation::field)
        .containsExactly("checkpoint.storageBandwidthGbPerSec", "checkpoint.writeShards");
  }
}
