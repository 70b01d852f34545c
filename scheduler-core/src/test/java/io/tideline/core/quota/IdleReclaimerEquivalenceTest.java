package io.tideline.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link IdleReclaimer#action} is {@code assess(…).action()} on sample sets built to sit on the
 * rules' edges (gaps of exactly {@code maxSampleGap} and one second
 * more, samples on the window's bounds and outside it, utilisation on both thresholds and on
 * multiples of 1/gpus, duplicates, any order).
 */
class IdleReclaimerEquivalenceTest {

  private static final Instant NOW = Instant.parse("2026-11-02T12:00:00Z");

  @Test
  void shouldActAsTheFullAssessmentRecommendsOnEdgeCases() {
    for (IdleConfig config : List.of(IdleConfig.DEFAULTS,
        new IdleConfig(0.6, 0.1, Duration.ofMinutes(30), Duration.ofMinutes(2), 1.3, 2))) {
      IdleReclaimer current = new IdleReclaimer(config);
      int[] actions = new int[IdleRecommendation.Action.values().length];
      for (long seed = 1; seed <= 3000; seed++) {
        Random rnd = new Random(seed);
        int gpus = 1 + rnd.nextInt(8);
        List<UtilisationSample> samples = samples(rnd, config, gpus);
        Duration remaining = rnd.nextBoolean() ? null : Duration.ofMinutes(rnd.nextInt(600));

        IdleRecommendation was = current.assess("j", gpus, remaining, samples, NOW);

        assertThat(current.action(gpus, samples, NOW)).as("seed %d", seed)
            .isEqualTo(was.action());
        actions[was.action().ordinal()]++;
      }
      // the generator reaches every outcome, so the comparison covers every branch
      assertThat(Arrays.stream(actions).min().orElseThrow()).as("%s", Arrays.toString(actions))
          .isGreaterThan(100);
    }
  }

  @Test
  void shouldKeepWhenTheLastSampleIsOneSecondTooOld() {
    IdleReclaimer r = new IdleReclaimer(IdleConfig.DEFAULTS);
    List<UtilisationSample> hour = new ArrayList<>();
    for (int m = 60; m >= 5; m -= 5) {
      hour.add(new UtilisationSample(NOW.minus(Duration.ofMinutes(m)), 0.01));
    }

    assertThat(r.action(4, hour, NOW)).isEqualTo(IdleRecommendation.Action.RECLAIM);
    assertThat(r.action(4, hour, NOW.plusSeconds(1))).isEqualTo(IdleRecommendation.Action.KEEP);
    assertThat(r.assess("j", 4, null, hour, NOW.plusSeconds(1)).reason())
        .isEqualTo("window PT1H not fully observed");
  }

  /** Samples around the window ending at NOW: regular, gappy, shuffled, on the thresholds. */
  private static List<UtilisationSample> samples(Random rnd, IdleConfig c, int gpus) {
    long gap = c.maxSampleGap().toSeconds();
    long window = c.window().toSeconds();
    long step = switch (rnd.nextInt(4)) {
      case 0 -> gap; // exactly the largest tolerated gap
      case 1 -> gap + 1; // one second too long
      default -> 1 + rnd.nextInt((int) gap);
    };
    double level = switch (rnd.nextInt(6)) {
      case 0 -> c.reclaimBelowUtilisation();
      case 1 -> c.shrinkBelowUtilisation();
      case 2 -> rnd.nextInt(gpus + 1) / (double) gpus;
      case 3 -> rnd.nextDouble() * c.reclaimBelowUtilisation();
      default -> rnd.nextDouble() * c.shrinkBelowUtilisation();
    };
    List<UtilisationSample> out = new ArrayList<>();
    long first = -window - rnd.nextInt((int) (2 * gap)) + rnd.nextInt((int) gap + 1);
    long last = rnd.nextInt(8) == 0 ? -gap - 1 - rnd.nextInt(60) : rnd.nextInt((int) gap + 1) - gap;
    for (long t = first; t <= last + rnd.nextInt(3) * gap; t += step) {
      double u = rnd.nextInt(5) == 0 ? level * rnd.nextDouble() : level;
      out.add(new UtilisationSample(NOW.plusSeconds(t), u));
      if (rnd.nextInt(20) == 0) {
        out.add(new UtilisationSample(NOW.plusSeconds(t), rnd.nextDouble())); // a duplicate instant
      }
    }
    if (rnd.nextInt(10) == 0) {
      out.add(new UtilisationSample(NOW.plusSeconds(gap), 0.9)); // after now: ignored
    }
    if (rnd.nextInt(12) == 0) {
      out.clear();
    }
    if (rnd.nextInt(4) == 0) {
      Collections.shuffle(out, rnd);
    }
    return out;
  }
}
