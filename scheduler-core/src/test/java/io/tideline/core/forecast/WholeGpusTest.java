package io.tideline.core.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WholeGpusTest {

  @Test
  void shouldForgiveTheSketchErrorAroundAWholeCount() {
    assertThat(SlotForecast.wholeGpus(3.03, 0.01)).isEqualTo(3);
    assertThat(SlotForecast.wholeGpus(2.97, 0.01)).isEqualTo(3);
    assertThat(SlotForecast.wholeGpus(3.0, 0.01)).isEqualTo(3);
  }

  @Test
  void shouldRoundFractionalUsageUp() {
    assertThat(SlotForecast.wholeGpus(2.5, 0.01)).isEqualTo(3);
    assertThat(SlotForecast.wholeGpus(0.25, 0.01)).isEqualTo(1);
    assertThat(SlotForecast.wholeGpus(3.04, 0.01)).isEqualTo(4);
  }

  @Test
  void shouldPreferTheLargerCountWhenTwoAreCompatible() {
    // 63.37 is within 1% of both 63 and 64: hold 64, never fewer than an exact 64.
    assertThat(SlotForecast.wholeGpus(63.37, 0.01)).isEqualTo(64);
  }

  @Test
  void shouldHoldNothingForNoUsage() {
    assertThat(SlotForecast.wholeGpus(0, 0.01)).isZero();
  }
}
