package io.tideline.telemetry.collect.prom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.telemetry.Fixtures;
import org.junit.jupiter.api.Test;

class PromTextParserTest {

  @Test
  void shouldParseACapturedDcgmExporterBodyCompletely() {
    PromParseResult r = PromTextParser.parse(Fixtures.text(Fixtures.L4_KOPS));

    assertThat(r.malformed()).isEmpty();
    assertThat(r.samples()).hasSize(23);
    assertThat(r.types()).containsEntry("DCGM_FI_DEV_GPU_UTIL", "gauge")
        .containsEntry("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter").hasSize(23);
    PromSample power = r.samples().stream()
        .filter(s -> s.name().equals("DCGM_FI_DEV_POWER_USAGE")).findFirst().orElseThrow();
    assertThat(power.value()).isEqualTo(16.365);
    assertThat(power.labels()).containsEntry("UUID", "GPU-c2f76b33-7953-256e-8f33-1343419b1a1c")
        .containsEntry("modelName", "NVIDIA L4").containsEntry("Hostname", "i-030791dc5a37cd257")
        .containsEntry("pci_bus_id", "00000000:31:00.0");
    assertThat(power.timestampMillis()).isNull();
  }

  @Test
  void shouldUnescapeLabelValues() {
    PromSample s = only("m{path=\"C:\\\\dir\",msg=\"say \\\"hi\\\"\\nbye\",empty=\"\"} 1");

    assertThat(s.label("path")).isEqualTo("C:\\dir");
    assertThat(s.label("msg")).isEqualTo("say \"hi\"\nbye");
    assertThat(s.label("empty")).isEmpty();
  }

  @Test
  void shouldReadNaNAndInfinitiesAndOptionalTimestamps() {
    PromParseResult r = PromTextParser.parse(String.join("\n",
        "a NaN", "b +Inf", "c -Inf", "d 1.5e3 1764403200000", "e{x=\"1\",} 7\t1764403200001", ""));

    assertThat(r.malformed()).isEmpty();
    assertThat(r.samples()).extracting(PromSample::value).containsExactly(
        Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1500.0, 7.0);
    assertThat(r.samples()).extracting(PromSample::timestampMillis)
        .containsExactly(null, null, null, 1764403200000L, 1764403200001L);
    assertThat(r.samples().get(4).labels()).containsEntry("x", "1");
  }

  @Test
  void shouldSkipAndReportMalformedLinesButKeepTheRest() {
    String body = String.join("\n",
        "# HELP ok a good one",
        "ok{gpu=\"0\"} 1",
        "broken{gpu=\"0\" 2",
        "unterminated{gpu=\"0} 3",
        "novalue{gpu=\"0\"}",
        "word{gpu=\"0\"} twelve",
        "java_only{gpu=\"0\"} Infinity",
        "trailing{gpu=\"0\"} 1 2 3",
        "badescape{gpu=\"\\t\"} 1",
        "0starts_with_digit 1",
        "ok{gpu=\"1\"} 4\r");

    PromParseResult r = PromTextParser.parse(body);

    assertThat(r.samples()).extracting(s -> s.label("gpu")).containsExactly("0", "1");
    assertThat(r.malformed()).extracting(PromParseResult.Malformed::lineNumber)
        .containsExactly(3, 4, 5, 6, 7, 8, 9, 10);
    assertThat(r.malformed().get(0).reason()).contains("expected ',' or '}'");
    assertThat(r.malformed().get(1).reason()).contains("unterminated");
    assertThat(r.malformed().get(3).reason()).contains("not a number: 'twelve'");
    assertThat(r.malformed().get(5).reason()).contains("unexpected text after the timestamp");
  }

  @Test
  void shouldRefuseValuesPrometheusDoesNotDefine() {
    assertThatThrownBy(() -> PromTextParser.parseValue("0x1p3")).hasMessageContaining("not a number");
    assertThatThrownBy(() -> PromTextParser.parseValue("1d")).hasMessageContaining("not a number");
    assertThat(PromTextParser.parseValue("-0.5")).isEqualTo(-0.5);
  }

  private static PromSample only(String line) {
    PromParseResult r = PromTextParser.parse(line);
    assertThat(r.malformed()).isEmpty();
    assertThat(r.samples()).hasSize(1);
    return r.samples().get(0);
  }
}
