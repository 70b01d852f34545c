package io.tideline.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One simulated day on 16 nodes, rendered: the charts are real PNGs and the HTML carries them. */
class HtmlReportTest {

  private static final SimConfig SMALL = SimConfig.DEFAULTS.with(7L, 1, 16);
  private static List<SimResult> results;

  @BeforeAll
  static void run() throws InterruptedException {
    Scenario scenario = Scenario.synthetic(SMALL);
    results = new ArrayList<>();
    for (Policy p : Policy.ALL) {
      results.add(Twin.run(p.name(), Twins.world(scenario), Twins.inProcess(scenario, p),
          Twin.Settings.of(SMALL), SMALL.end(), null));
    }
  }

  @Test
  void shouldSampleEveryControllerTickOfTheHorizon() {
    long ticks = java.time.Duration.ofDays(1).toSeconds() / SMALL.tick().toSeconds();
    for (SimResult r : results) {
      assertThat(r.timeline()).as(r.policy()).hasSize((int) ticks);
      assertThat(r.timeline()).allSatisfy(s -> {
        assertThat(s.allocation()).isBetween(0.0, 1.0);
        assertThat(s.fragmentation()).isBetween(0.0, 1.0);
        assertThat(s.onlineGpus() + s.offlineGpus() + s.reservedIdleGpus())
            .isLessThanOrEqualTo(SMALL.fleetGpus() + 1e-6);
      });
    }
  }

  @Test
  void shouldHoldForecastsOnlyForAPolicyThatForecasts() {
    SimResult noForecast = results.stream().filter(r -> r.policy().equals("no-forecast"))
        .findFirst().orElseThrow();

    SimResult tideline = results.stream().filter(r -> r.policy().equals("tideline"))
        .findFirst().orElseThrow();

    assertThat(noForecast.timeline()).allSatisfy(s -> {
      assertThat(s.forecastGpus()).isNaN();
      assertThat(s.reservedIdleGpus()).isZero();
    });
    assertThat(noForecast.reservations()).isZero();
    // the twin composes the forecaster for every other policy: its forecasts reach the chart
    assertThat(tideline.timeline()).anyMatch(s -> !Double.isNaN(s.forecastGpus()));
    assertThat(tideline.reservations()).isPositive();
  }

  @Test
  void shouldReserveFromTheFirstDayOfARunWithoutHistory() {
    // SMALL plays one day with no history before it: every reservation is a cold-start one
    SimResult tideline = results.stream().filter(r -> r.policy().equals("tideline"))
        .findFirst().orElseThrow();
    SimResult noForecast = results.stream().filter(r -> r.policy().equals("no-forecast"))
        .findFirst().orElseThrow();

    assertThat(tideline.firstDayReservations()).isPositive()
        .isEqualTo(tideline.reservations());
    assertThat(noForecast.firstDayReservations()).isZero();
    assertThat(new Report(results).markdown())
        .contains("| forecast reservations, first day |  |");
  }

  @Test
  void shouldWriteOneSelfContainedReportWithEveryChartInlined(@TempDir Path dir) throws Exception {
    List<Path> charts = Charts.write(dir, results, SMALL.start());
    Path html = dir.resolve("report.html");
    HtmlReport.write(html, "1 day <16 nodes>", List.of("seed 7"), new Report(results).html(),
        charts);

    assertThat(charts).extracting(p -> p.getFileName().toString())
        .containsExactlyElementsOf(Charts.CAPTIONS.keySet());
    String page = Files.readString(html, StandardCharsets.UTF_8);
    assertThat(page).contains("1 day &lt;16 nodes&gt;").contains("seed 7")
        .contains("<th>tideline</th>").contains("<th>hard-split</th>")
        .doesNotContain("src=\"tide.png\"");
    Matcher m = Pattern.compile("data:image/png;base64,([A-Za-z0-9+/=]+)\"").matcher(page);
    int images = 0;
    while (m.find()) {
      BufferedImage img = ImageIO.read(new ByteArrayInputStream(
          Base64.getDecoder().decode(m.group(1))));
      assertThat(img).isNotNull();
      assertThat(img.getWidth()).isGreaterThan(500);
      images++;
    }
    assertThat(images).isEqualTo(charts.size());
  }
}
