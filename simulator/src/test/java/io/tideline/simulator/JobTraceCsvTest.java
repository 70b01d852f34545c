package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.model.WorkloadClass;
import java.io.StringReader;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobTraceCsvTest {

  private static final Instant START = Instant.parse("2026-11-02T00:00:00Z");
  private static final String HEADER =
      "submit_offset_s,duration_s,gpus,gpu_fraction,gpu_model,class,tenant,preemptible,checkpoint\n";

  @Test
  void shouldReadTheShippedSample() {
    List<JobSpec> jobs = JobTraceCsv.parse(Scenario.resource(Scenario.SAMPLE_JOBS), START);

    assertThat(jobs).hasSize(8);
    JobSpec first = jobs.get(0);
    assertThat(first.submitAt()).isEqualTo(START);
    assertThat(first.gpus()).isEqualTo(8);
    assertThat(first.checkpoint()).isEqualTo(CheckpointKind.MEDIUM);
    JobSpec critical = jobs.get(4);
    assertThat(critical.critical()).isTrue();
    assertThat(critical.workloadClass()).isEqualTo(WorkloadClass.TRAINING);
    assertThat(critical.toRequest(List.of()).gangSize()).isEqualTo(4);
  }

  @Test
  void shouldReadAFractionalBatchJob() {
    JobSpec j = JobTraceCsv.parse(new StringReader(HEADER
        + "300,3600,1,0.5,,BATCH_INFERENCE,tenant-b,true,NONE\n"), START).get(0);

    assertThat(j.submitAt()).isEqualTo(Instant.parse("2026-11-02T00:05:00Z"));
    assertThat(j.gpuDemand()).isEqualTo(0.5);
    assertThat(j.toRequest(List.of()).fractional()).isTrue();
  }

  @Test
  void shouldNameTheLineOfABadField() {
    assertThatThrownBy(() -> JobTraceCsv.parse(new StringReader(HEADER
        + "0,60,1,1.0,,TRAINING,t,true,NONE\n0,60,1,1.0,,NOPE,t,true,NONE\n"), START))
        .hasMessageStartingWith("line 3");
  }

  @Test
  void shouldRefuseOnlineInferenceInAJobTrace() {
    assertThatThrownBy(() -> JobTraceCsv.parse(new StringReader(HEADER
        + "0,60,1,1.0,,ONLINE_INFERENCE,t,false,NONE\n"), START))
        .hasMessageContaining("demand trace");
  }
}
