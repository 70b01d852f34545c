package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.model.WorkloadClass;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyntheticWorkloadTest {

  private static final SimConfig DAY = SimConfig.DEFAULTS.with(42L, 1, 16);

  @Test
  void shouldStartAWarmFleetWithTrainingWorthTheShareOfItsGpus() {
    List<JobSpec> warm = SyntheticWorkload.warmStart(DAY.withWarmStart(0.6));

    int gpus = warm.stream().mapToInt(JobSpec::gpus).sum();
    int largest = warm.stream().mapToInt(JobSpec::gpus).max().orElseThrow();
    assertThat(gpus).isGreaterThanOrEqualTo((int) Math.ceil(0.6 * DAY.fleetGpus()))
        .isLessThan((int) Math.ceil(0.6 * DAY.fleetGpus()) + largest);
    assertThat(warm).allSatisfy(j -> {
      assertThat(j.submitAt()).isEqualTo(DAY.start());
      assertThat(j.workloadClass()).isIn(WorkloadClass.TRAINING,
          WorkloadClass.EXPLORATORY_TRAINING);
      assertThat(j.id()).startsWith("warm-");
    });
  }

  @Test
  void shouldLeaveTheArrivalsOfTheDayAsTheyWereWhenTheFleetStartsWarm() {
    List<JobSpec> cold = SyntheticWorkload.generate(DAY);
    List<JobSpec> warm = SyntheticWorkload.generate(DAY.withWarmStart(0.6));

    assertThat(cold).noneMatch(j -> j.id().startsWith("warm-"));
    assertThat(warm.stream().filter(j -> !j.id().startsWith("warm-")).toList())
        .isEqualTo(cold);
    assertThat(warm.get(0).id()).isEqualTo("warm-0000");
  }
}
