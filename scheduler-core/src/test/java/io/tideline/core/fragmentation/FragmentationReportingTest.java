package io.tideline.core.fragmentation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.fragmentation.FragmentationReporting.Config;
import io.tideline.core.fragmentation.FragmentationReporting.Trigger;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FragmentationReportingTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");
  final FragmentationReporting reporting = new FragmentationReporting(Config.DEFAULTS);

  @Test
  void shouldReportTheFirstMeasurement() {
    assertThat(reporting.due(T0, 0.0, null, 0)).isEqualTo(Trigger.FIRST);
  }

  @Test
  void shouldReportAMoveOfExactlyTheStepAtOnceAndStayQuietJustBelowIt() {
    assertThat(reporting.due(T0.plusSeconds(10), 0.45, T0, 0.40)).isEqualTo(Trigger.CHANGED);
    assertThat(reporting.due(T0.plusSeconds(10), 0.35, T0, 0.40)).isEqualTo(Trigger.CHANGED);
    assertThat(reporting.due(T0.plusSeconds(10), 0.449, T0, 0.40)).isNull();
  }

  @Test
  void shouldReportAnUnchangedFigureOncePerIntervalOfEventTime() {
    assertThat(reporting.due(T0.plus(Duration.ofMinutes(15)).minusMillis(1), 0.4, T0, 0.4))
        .isNull();
    assertThat(reporting.due(T0.plus(Duration.ofMinutes(15)), 0.4, T0, 0.4))
        .isEqualTo(Trigger.INTERVAL);
  }

  @Test
  void shouldRefuseANonsensicalConfig() {
    assertThatThrownBy(() -> new Config(0, Duration.ofMinutes(1)))
        .hasMessageContaining("minChange");
    assertThatThrownBy(() -> new Config(0.1, Duration.ZERO)).hasMessageContaining("interval");
  }
}
