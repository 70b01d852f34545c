package io.tideline.console.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tideline.console.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md is the one list of metrics: every meter Tideline's code registers is on it and
 * nothing else of Tideline's is; every metric the rules and dashboards of deploy/k8s/monitoring
 * query is on it; the rules pass {@code promtool check rules}.
 */
public class MetricsCatalogueTest {

  private static final Path ROOT = Repo.root();
  private static final Path DOC = ROOT.resolve("docs/metrics.md");
  private static final Path MONITORING = ROOT.resolve("deploy/k8s/monitoring");
  private static final Pattern METER_NAME = Pattern.compile("\"(tideline(?:\\.[a-z_]+){2,})\"");
  private static final Pattern DOC_ROW = Pattern.compile("^\\| `([a-z0-9_.]+)` \\| `([a-z0-9_:]+)`",
      Pattern.MULTILINE);
  private static final Pattern DOC_SERIES = Pattern.compile("`([a-z_][a-z0-9_:]*)`");
  private static final Set<String> SUFFIXES = Set.of("_bucket", "_count", "_sum", "_max");

  @Test
  void shouldDocumentEveryMeterTheCodeRegistersAndNoOther() throws IOException {
    Set<String> inCode = metersInCode();
    Set<String> documented = new TreeSet<>();
    Matcher m = DOC_ROW.matcher(Files.readString(DOC));
    while (m.find()) {
      documented.add(m.group(1));
    }
    assertThat(inCode).as("meters registered in */src/main/java").isNotEmpty()
        .contains("tideline.placement.decisions", "tideline.console.online.scaleup.wait");
    assertThat(documented).as("docs/metrics.md lists exactly the meters the code registers")
        .containsExactlyInAnyOrderElementsOf(inCode);
  }

  @Test
  void shouldQueryOnlyDocumentedMetricsInEveryRuleAndDashboard() throws IOException {
    Set<String> known = documentedSeries();
    List<String> exprs = new ArrayList<>();
    Set<String> recorded = new TreeSet<>();
    JsonNode rules = rules();
    for (JsonNode group : rules.path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        exprs.add(rule.path("expr").asText());
        if (rule.has("record")) {
          recorded.add(rule.path("record").asText());
        }
      }
    }
    int panels = 0;
    try (Stream<Path> files = Files.list(MONITORING.resolve("dashboards"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        JsonNode dashboard = new ObjectMapper().readTree(f.toFile());
        assertThat(dashboard.path("uid").asText()).as("%s has a uid", f).isNotBlank();
        for (JsonNode panel : dashboard.path("panels")) {
          panels++;
          assertThat(panel.path("targets").size()).as("%s: %s queries something", f,
              panel.path("title")).isPositive();
          panel.path("targets").forEach(t -> exprs.add(t.path("expr").asText()));
        }
      }
    }
    assertThat(panels).isGreaterThanOrEqualTo(10);
    Set<String> queried = new TreeSet<>();
    exprs.forEach(e -> queried.addAll(PromQl.metricNames(e)));
    queried.removeAll(recorded);
    assertThat(queried).as("metrics the rules and dashboards query").isNotEmpty()
        .allSatisfy(name -> assertThat(known).as("docs/metrics.md lists %s", name).contains(name));
    assertThat(PromQl.metricNames(
        "sum by (le) (rate(tideline_console_online_scaleup_wait_seconds_bucket{a=\"b\"}[5m]))"))
        .as("the parser itself").containsExactly("tideline_console_online_scaleup_wait_seconds_bucket");
  }

  @Test
  void shouldPassPromtoolCheckRules() throws Exception {
    Path promtool = Repo.tool("promtool", "prometheus");
    Path file = Files.createTempFile("tideline-rules", ".yaml");
    writeRulesFile(file);
    Process p = new ProcessBuilder(promtool.toString(), "check", "rules", file.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("SUCCESS");
  }

  /** The PrometheusRule's spec (its groups), as a plain Prometheus rules file. */
  public static void writeRulesFile(Path file) throws IOException {
    new ObjectMapper(new YAMLFactory()).writeValue(file.toFile(), rules());
  }

  static JsonNode rules() throws IOException {
    JsonNode rule = new ObjectMapper(new YAMLFactory())
        .readTree(MONITORING.resolve("prometheusrule.yaml").toFile());
    assertThat(rule.path("kind").asText()).isEqualTo("PrometheusRule");
    return rule.path("spec");
  }

  private static Set<String> documentedSeries() throws IOException {
    Set<String> names = new TreeSet<>();
    for (String line : Files.readAllLines(DOC)) {
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("\\|");
      // own metrics: the second column; framework metrics: the first
      String cell = cells.length > 2 && cells[1].contains(".") ? cells[2] : cells[1];
      Matcher m = DOC_SERIES.matcher(cell);
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    Set<String> withSuffixes = new TreeSet<>(names);
    for (String n : names) {
      for (String s : SUFFIXES) {
        if (n.startsWith("_")) {
          continue;
        }
        withSuffixes.add(n + s);
      }
    }
    return withSuffixes;
  }

  private static Set<String> metersInCode() throws IOException {
    Set<String> names = new TreeSet<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module : modules.filter(Files::isDirectory).toList()) {
        Path main = module.resolve("src/main/java");
        if (!Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> sources = Files.walk(main)) {
          for (Path src : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
            String text = Files.readString(src);
            if (!text.contains("io.micrometer")) {
              continue;
            }
            Matcher m = METER_NAME.matcher(text);
            while (m.find()) {
              names.add(m.group(1));
            }
          }
        }
      }
    }
    return names;
  }
}
