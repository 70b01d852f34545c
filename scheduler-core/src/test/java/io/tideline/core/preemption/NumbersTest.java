package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NumbersTest {

  @Test
  void shouldFormatTwoDecimalsLikeATraceLineReadsThem() {
    assertThat(Numbers.d2(1.3)).isEqualTo("1.30");
    assertThat(Numbers.d2(1.49)).isEqualTo("1.49");
    assertThat(Numbers.d2(1.499999)).isEqualTo("1.50");
    assertThat(Numbers.d2(0.05)).isEqualTo("0.05");
    assertThat(Numbers.d2(12)).isEqualTo("12.00");
    assertThat(Numbers.d2(-2.1)).isEqualTo("-2.10");
    assertThat(Numbers.d2(-0.001)).isEqualTo("0.00");
    assertThat(Numbers.d0(411.6)).isEqualTo("412");
  }
}
