package io.tideline.forecaster.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.common.MapBackedConfigSource;
import io.tideline.core.forecast.ForecastConfig;
import io.tideline.core.forecast.ReservationConfig;
import io.tideline.core.slots.SlotClassifierConfig;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The service's config defaults are the core's, and holidays come from the config list. */
class ForecasterConfigTest {

  private static ForecasterConfig mapping(Map<String, String> values) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withMapping(ForecasterConfig.class)
        .withSources(new MapBackedConfigSource("test", values) {})
        .build();
    return config.getConfigMapping(ForecasterConfig.class);
  }

  @Test
  void shouldDefaultToTheCoreConfigs() {
    ForecastSettings s = mapping(Map.of()).settings("default", "forecaster-svc");
    assertThat(s.kernel()).isEqualTo(
        io.tideline.core.forecast.kernel.ForecastKernelConfig.defaults("default", ZoneId.of("UTC")));
    assertThat(s.forecast()).isEqualTo(ForecastConfig.DEFAULTS);
    assertThat(s.reservation()).isEqualTo(ReservationConfig.DEFAULTS);
    assertThat(s.kernel().slotClassifier()).isEqualTo(SlotClassifierConfig.DEFAULTS);
    assertThat(s.zone()).isEqualTo(ZoneId.of("UTC"));
    assertThat(s.kernel().configuredHolidays()).isEmpty();
  }

  @Test
  void shouldReadHolidaysAndPolicyFromConfiguration() {
    ForecastSettings s = mapping(Map.of(
        "tideline.forecast.holidays", "2026-10-01,2026-10-02",
        "tideline.forecast.zone", "Asia/Shanghai",
        "tideline.forecast.quantile", "P95",
        "tideline.forecast.max-over-issue-gpus", "8",
        "tideline.forecast.coverage-margin", "0.05"))
        .settings("default", "forecaster-svc");
    assertThat(s.kernel().configuredHolidays())
        .containsExactly(LocalDate.parse("2026-10-01"), LocalDate.parse("2026-10-02"));
    assertThat(s.zone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
    assertThat(s.reservation().quantile().name()).isEqualTo("P95");
    assertThat(s.reservation().maxOverIssueGpus()).isEqualTo(8);
    assertThat(s.forecast().calibration().coverageMargin()).isEqualTo(0.05);
    assertThat(s.calendar(List.of()).holidays()).hasSize(2);
  }
}
