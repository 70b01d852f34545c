package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.model.WorkloadClass;
import org.junit.jupiter.api.Test;

class PreemptionGainTest {

  final PreemptionGain gain = new PreemptionGain(PreemptionConfig.DEFAULTS);

  @Test
  void shouldValueTenMinutesOfEightOnlineGpusAtSixPointSevenGpuHours() {
    PreemptionRequest r = Requests.online("inf").gpus(8).waitSeconds(600).build();

    assertThat(gain.classWeight(r)).isEqualTo(5.0);
    assertThat(gain.gpuHours(r)).isCloseTo(8 * (600 / 3600.0) * 5, within(1e-12));
  }

  @Test
  void shouldWeighACriticalTrainingJobsWaitTwiceAPlainOne() {
    PreemptionRequest critical = Requests.training("crit").critical(true).gpus(16)
        .waitSeconds(3600).build();

    assertThat(gain.gpuHours(critical)).isEqualTo(32.0);
  }

  @Test
  void shouldAddTheValueOfMeetingAReservation() {
    PreemptionRequest r = Requests.online("inf").workloadClass(WorkloadClass.ONLINE_INFERENCE)
        .gpus(8).waitSeconds(0).reservationValue(3.5).build();

    assertThat(gain.gpuHours(r)).isEqualTo(3.5);
  }
}
