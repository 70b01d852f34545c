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

  @Test
  void shouldAppendExactlyWhatD2Formats() {
    double[] values = {0, 1.3, 1.49, 1.499999, 0.05, 12, -2.1, -0.001, -0.005, 0.005, 123456.789,
        Double.NaN, Double.POSITIVE_INFINITY, 1e15, -1e16, 99.995, 0.994999};
    for (double v : values) {
      assertThat(Numbers.appendD2(new StringBuilder("x"), v).toString())
          .as("%s", v).isEqualTo("x" + Numbers.d2(v));
    }
    java.util.Random rnd = new java.util.Random(7);
    for (int i = 0; i < 10_000; i++) {
      double v = (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(8));
      assertThat(Numbers.appendD2(new StringBuilder(), v).toString()).isEqualTo(Numbers.d2(v));
    }
  }

  @Test
  void shouldAppendLongsLikeToString() {
    long[] values = {0, 7, 10, 99, 100, 12345, 999_999_999_999L, Long.MAX_VALUE, -1, Long.MIN_VALUE};
    for (long v : values) {
      assertThat(Numbers.appendLong(new StringBuilder(), v).toString()).isEqualTo(Long.toString(v));
    }
  }

  @Test
  void shouldMeasureMillisExactlyLikeDuration() {
    java.util.Random rnd = new java.util.Random(11);
    java.time.Instant base = java.time.Instant.parse("2026-11-02T14:30:00Z");
    for (int i = 0; i < 10_000; i++) {
      java.time.Instant a = base.plusSeconds(rnd.nextInt(200_000) - 100_000)
          .plusNanos(rnd.nextInt(1_000_000_000));
      java.time.Instant b = base.plusSeconds(rnd.nextInt(200_000) - 100_000)
          .plusNanos(rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(1_000_000_000));
      assertThat(Times.millisBetween(a, b)).as("%s → %s", a, b)
          .isEqualTo(java.time.Duration.between(a, b).toMillis());
    }
  }
}
