package io.tideline.core.forecast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DemandShapeTest {

  private final DemandScaler scaler = new DemandScaler(DemandShapeConfig.DEFAULTS);

  @Test
  void shouldTurnRequestRateIntoGpusAtFiveRequestsPerSecondEach() {
    assertThat(scaler.gpus(48.35)).isCloseTo(9.67, within(1e-9));
    assertThat(scaler.wholeGpus(50.0)).isEqualTo(10);
    assertThat(scaler.wholeGpus(50.01)).isEqualTo(11);
    assertThat(scaler.wholeGpus(0)).isZero();
  }

  @Test
  void shouldRejectANegativeRate() {
    assertThatThrownBy(() -> scaler.gpus(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldShiftASyntheticTraceSoItsMinimumFallsAtFourInTheMorning() {
    // Two days at 10-minute steps; the minimum sits 7 h after the trace start.
    int steps = 2 * 144;
    long[] offsets = new long[steps];
    double[] values = new double[steps];
    for (int i = 0; i < steps; i++) {
      offsets[i] = i * 600L;
      double hoursFromMinimum = ((i % 144) / 6.0) - 7.0;
      values[i] = 100 - 80 * Math.cos(2 * Math.PI * hoursFromMinimum / 24.0);
    }

    TraceAlignment alignment =
        TraceAlignment.align(offsets, values, Duration.ofMinutes(10), DemandShapeConfig.DEFAULTS);

    assertThat(alignment.minimumStep()).isEqualTo(42);
    assertThat(alignment.shift()).isEqualTo(Duration.ofHours(21)); // 07:00 + 21 h = 04:00
    // a cosine trough at 04:00 peaks at 16:00: 08:00-22:00 holds most of the demand
    assertThat(alignment.dayShare()).isGreaterThan(0.70);
    assertThat(alignment.meetsDayShare(DemandShapeConfig.W2_STATED_DAY_SHARE)).isTrue();
  }
}
