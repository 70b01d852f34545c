package io.tideline.core.forecast.kernel;

import static io.tideline.core.forecast.kernel.KernelRun.at;
import static io.tideline.core.forecast.kernel.KernelRun.ok;
import static io.tideline.core.forecast.kernel.KernelRun.stale;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tideline.core.forecast.ForecastBasis;
import io.tideline.core.forecast.ReservationEvent;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.forecast.kernel.ForecastEffect.Count;
import io.tideline.core.forecast.kernel.ForecastEffect.Forecast;
import io.tideline.core.forecast.kernel.ForecastEffect.Reservation;
import io.tideline.core.forecast.kernel.ForecastEffect.Tally;
import io.tideline.core.forecast.kernel.ForecastInput.JobDeclared;
import io.tideline.core.forecast.kernel.ForecastInput.JobRan;
import io.tideline.core.forecast.kernel.ForecastInput.NodeChanged;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.slots.SlotClass;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Scenarios of the forecast kernel (issue #14): inputs wait for a tick, the tick decides; the
 * same inputs in another arrival order decide the same; a restored state decides the same. The
 * history used by most: on three regular days the service {@code chat} runs 10 GPUs from 08:30
 * and 20 GPUs in the 09:00 slot, so on the fourth day the 09:00 slot is forecast at 20.
 */
class ForecastKernelTest {

  static final LocalDate D = LocalDate.parse("2026-11-10");
  static final Duration TEN_SECONDS = Duration.ofSeconds(10);

  /** Three regular days before D: 10 GPUs 08:30-09:00, 20 GPUs 09:00-09:15. */
  static void risingHistory(KernelRun k) {
    for (int d = 3; d >= 1; d--) {
      LocalDate day = D.minusDays(d);
      k.usage("chat", 10, at(day, "08:30"), 30, 4);
      k.usage("chat", 20, at(day, "09:00"), 15, 4);
      k.tick(at(day, "09:17"));
    }
  }

  static List<Reservation> ofType(List<Reservation> all, ReservationEvent.Type type) {
    return all.stream().filter(r -> r.event().type() == type).toList();
  }

  @Test
  void shouldOnlyQueueAnInputUntilATickDecides() {
    KernelRun k = new KernelRun();
    k.tick(at(D, "08:00"));

    List<ForecastEffect> onSample = k.feed(ok("g1", "chat", "c1", at(D, "08:00:30")));

    assertThat(onSample).isEmpty();
    assertThat(k.state.inbox().size()).isEqualTo(1);
    assertThat(k.state.gpus().isEmpty()).isTrue();
    k.tick(at(D, "08:01"));
    assertThat(k.state.inbox().isEmpty()).isTrue();
    assertThat(k.state.gpus().get("g1").open()).hasSize(1);
    // recorded only once its minute's grace has passed
    assertThat(k.state.histories().isEmpty()).isTrue();
    k.tick(at(D, "08:02"));
    assertThat(k.state.histories().get("chat").slotMean(at(D, "08:00"))).isPresent();
  }

  @Test
  void shouldRefuseAnInputTimedFarAheadOfTheClock() {
    KernelRun k = new KernelRun();
    k.tick(at(D, "08:00"));

    List<ForecastEffect> effects = k.feed(ok("g1", "chat", "c1", at(D.plusYears(274), "08:00")));

    assertThat(effects).singleElement().isInstanceOfSatisfying(ForecastEffect.Refused.class,
        r -> {
          assertThat(r.at()).isEqualTo(at(D, "08:00"));
          assertThat(r.reason()).contains("more than PT10M after the forecaster's clock");
        });
    assertThat(k.state.inbox().isEmpty()).isTrue();
  }

  @Test
  void shouldIgnoreAStaleTickAndATickOfAnotherCluster() {
    KernelRun k = new KernelRun();
    k.tick(at(D, "08:00"));
    k.feed(ok("g1", "chat", "c1", at(D, "07:59:30")));

    List<ForecastEffect> stale = k.tick(at(D, "07:59"));
    List<ForecastEffect> other = k.feed(new ForecastInput.Ticked(
        new io.tideline.core.kernel.Tick(at(D, "09:00"), "elsewhere")));

    assertThat(stale).singleElement().isInstanceOfSatisfying(Tally.class,
        t -> assertThat(t.of(Count.TICK_STALE)).isEqualTo(1));
    assertThat(other).singleElement().isInstanceOfSatisfying(Tally.class,
        t -> assertThat(t.of(Count.TICK_OTHER_CLUSTER)).isEqualTo(1));
    assertThat(k.state.inbox().size()).isEqualTo(1);
    assertThat(k.state.clockOf(KernelRun.CLUSTER).lastTick()).isEqualTo(at(D, "08:00"));
  }

  @Test
  void shouldReserveFifteenMinutesAheadSizedByTheForecast() {
    KernelRun k = new KernelRun();
    risingHistory(k);
    k.usage("chat", 10, at(D, "08:20"), 24, 4); // ticks until 08:44
    int mark = k.effects.size();

    k.ticks(at(D, "08:44:10"), at(D, "08:46:00"), TEN_SECONDS);

    List<Reservation> reservations = k.since(mark, Reservation.class);
    assertThat(reservations).singleElement().satisfies(r -> {
      assertThat(r.at()).isEqualTo(at(D, "08:45"));
      assertThat(r.event().type()).isEqualTo(ReservationEvent.Type.RESERVE);
      assertThat(r.event().gpus()).isEqualTo(10);
      assertThat(r.event().from()).isEqualTo(at(D, "09:00"));
      assertThat(r.event().until()).isEqualTo(at(D, "09:15"));
      assertThat(r.basis()).isEqualTo(ForecastBasis.REGULAR_HISTORY);
    });
    List<Forecast> forecasts = k.since(mark, Forecast.class);
    assertThat(forecasts).singleElement().satisfies(f -> {
      assertThat(f.forecast().slotStart()).isEqualTo(at(D, "09:00"));
      assertThat(f.forecast().p90()).isCloseTo(20.0, within(0.3));
      assertThat(f.historicalPeak()).isEqualTo(20.0);
    });
    assertThat(k.state.calibrations().get("chat").pending())
        .anySatisfy(p -> assertThat(p.slotStart()).isEqualTo(at(D, "09:00")));
  }

  @Test
  void shouldForecastAndReserveForANewServiceFromItsFirstSlotFlaggedAsColdStart() {
    KernelRun k = new KernelRun();
    k.usage("fresh", 8, at(D, "08:00"), 30, 2); // its first half hour, ticks to 08:30
    int mark = k.effects.size();

    k.ticks(at(D, "08:30:10"), at(D, "08:45:00"), TEN_SECONDS);

    Forecast f = k.since(mark, Forecast.class).get(0);
    assertThat(f.forecast().basis()).isEqualTo(ForecastBasis.COLD_START);
    assertThat(f.forecast().slotStart()).isEqualTo(at(D, "09:00"));
    assertThat(f.forecast().p50()).isCloseTo(8, within(0.1));
    Reservation r = ofType(k.since(mark, Reservation.class), ReservationEvent.Type.RESERVE).get(0);
    assertThat(r.at()).isEqualTo(at(D, "08:45"));
    assertThat(r.basis()).isEqualTo(ForecastBasis.COLD_START);
    assertThat(r.event().gpus()).isEqualTo(2); // p90 = 8 x 1.2 = 9.6 -> 10, 8 held
  }

  @Test
  void shouldCarryStaleGpusForTheirLastServiceAndSkipMinutesPastTheCarry() {
    KernelRun k = new KernelRun();
    LocalDate day = D.minusDays(1);
    k.usage("chat", 10, at(day, "09:00"), 5, 2); // 09:00-09:04 all OK
    // 09:05-09:09: five of the ten GPUs go STALE (the scrape fails; no service in the sample)
    for (int m = 5; m < 10; m++) {
      Instant t = at(day, "09:00").plusSeconds(60L * m + 30);
      for (int g = 0; g < 10; g++) {
        k.feed(g < 5 ? stale("chat-gpu-" + g, null, t) : ok("chat-gpu-" + g, "chat", "c", t));
      }
      k.tick(at(day, "09:00").plusSeconds(60L * (m + 1)));
    }
    k.usage("chat", 10, at(day, "09:10"), 5, 2);
    k.tick(at(day, "09:17"));

    SlotHistory h = k.state.histories().get("chat");
    // 09:05-09:06 carry the stale GPUs (within 2 min of their last OK sample), 09:07-09:09 are
    // unknown and not recorded: 12 minutes at 10 GPUs, none at 5
    assertThat(h.slotMean(at(day, "09:00")).orElseThrow()).isCloseTo(10, within(0.1));
    Map<Count, Integer> totals = totals(k);
    assertThat(totals.get(Count.GPU_CARRIED)).isEqualTo(10);
    assertThat(totals.get(Count.MINUTE_SKIPPED_UNKNOWN)).isEqualTo(3);
    assertThat(totals.get(Count.MINUTE_RECORDED)).isEqualTo(5 + 2 + 5);
  }

  @Test
  void shouldEndTheCarryWhenTheJobEnds() {
    KernelRun k = new KernelRun();
    LocalDate day = D.minusDays(1);
    for (String t : List.of("09:00:30", "09:01:30")) {
      k.feed(ok("gpu-a", "chat", "chat-a", at(day, t)));
      k.feed(ok("gpu-b", "chat", "chat-b", at(day, t)));
    }
    k.feed(new JobRan("chat-b", at(day, "09:02:00"), true));
    for (String t : List.of("09:02:30", "09:03:30")) {
      k.feed(stale("gpu-a", null, at(day, t)));
      k.feed(stale("gpu-b", null, at(day, t)));
    }
    k.tick(at(day, "09:05"));

    // 09:00-09:01 at 2; 09:02-09:03 carry gpu-a only (chat-b ended): 1, not 2 and not 0
    SlotHistory h = k.state.histories().get("chat");
    assertThat(h.slotMean(at(day, "09:00")).orElseThrow()).isCloseTo(1.5, within(0.02));
    assertThat(totals(k).get(Count.GPU_CARRY_ENDED)).isEqualTo(2);
  }

  @Test
  void shouldRecordZeroWhenTelemetryReportsAndNoGpuIsTheServices() {
    KernelRun k = new KernelRun();
    k.usage("chat", 3, at(D, "09:00"), 5, 2);
    // chat's GPUs are released: they report idle
    for (int m = 5; m < 10; m++) {
      Instant t = at(D, "09:00").plusSeconds(60L * m + 30);
      for (int g = 0; g < 3; g++) {
        k.feed(ok("chat-gpu-" + g, null, null, t));
      }
      k.tick(at(D, "09:00").plusSeconds(60L * (m + 1)));
    }
    k.tick(at(D, "09:12"));

    assertThat(totals(k).get(Count.MINUTE_ZERO)).isEqualTo(5);
    assertThat(k.state.holdings().get("chat").inUse()).isZero();
    assertThat(k.state.histories().get("chat").slotMean(at(D, "09:00")).orElseThrow())
        .isCloseTo(1.5, within(0.02));
  }

  @Test
  void shouldTreatAMinuteNobodyReportedAsMissingAndKeepTheForecast() {
    KernelRun withGap = steadyMorning();
    KernelRun without = steadyMorning();
    // 08:00-08:40: telemetry is down for withGap (no sample at all), steady for the other
    withGap.ticks(at(D, "08:00:10"), at(D, "08:40:00"), Duration.ofMinutes(1));
    without.usage("chat", 10, at(D, "08:00"), 40, 4);

    Forecast gap = forecastAt0900(withGap);
    Forecast steady = forecastAt0900(without);
    assertThat(withGap.state.histories().get("chat").slotMean(at(D, "08:15"))).isEmpty();
    assertThat(gap.forecast().p50()).isGreaterThanOrEqualTo(steady.forecast().p50() - 0.01);
    assertThat(gap.forecast().p90()).isGreaterThanOrEqualTo(steady.forecast().p90() - 0.01);
  }

  @Test
  void shouldNotShrinkTheNextForecastAfterAnAllStaleWindow() {
    KernelRun withStale = steadyMorning();
    KernelRun steady = steadyMorning();
    // 08:00-08:40: every GPU of the fleet reports STALE for withStale (the collector lost its
    // source: samples arrive, none carries a figure), while the other run reads 10 GPUs in use
    for (int m = 0; m < 40; m++) {
      Instant t = at(D, "08:00").plusSeconds(60L * m + 30);
      for (int g = 0; g < 10; g++) {
        withStale.feed(stale("chat-gpu-" + g, null, t));
      }
      for (int g = 0; g < 4; g++) {
        withStale.feed(stale("spare-gpu-" + g, null, t));
      }
      withStale.tick(at(D, "08:00").plusSeconds(60L * (m + 1)));
    }
    steady.usage("chat", 10, at(D, "08:00"), 40, 4);
    Forecast afterStale = forecastAt0900(withStale);
    Forecast withData = forecastAt0900(steady);
    assertThat(afterStale.forecast().p50())
        .isGreaterThanOrEqualTo(withData.forecast().p50() - 0.01);
    assertThat(afterStale.forecast().p90())
        .isGreaterThanOrEqualTo(withData.forecast().p90() - 0.01);
    // past the 2-minute carry the STALE minutes are unknown: not recorded, so not zero demand
    assertThat(withStale.state.histories().get("chat").slotMean(at(D, "08:15"))).isEmpty();
    assertThat(totals(withStale).get(Count.MINUTE_SKIPPED_UNKNOWN)).isEqualTo(40 - 2);
  }

  /** The rising history, then 10 GPUs steady 07:00-08:00 (idle spares 4). */
  private static KernelRun steadyMorning() {
    KernelRun k = new KernelRun();
    risingHistory(k);
    k.usage("chat", 10, at(D, "07:00"), 60, 4);
    return k;
  }

  /** Telemetry back at 08:40 (10 GPUs), ticks to the 08:45 reserve instant: the 09:00 forecast. */
  private static Forecast forecastAt0900(KernelRun k) {
    k.usage("chat", 10, at(D, "08:40"), 4, 4);
    k.ticks(at(D, "08:44:10"), at(D, "08:45:00"), TEN_SECONDS);
    return k.all(Forecast.class).stream()
        .filter(f -> f.forecast().slotStart().equals(at(D, "09:00"))).findFirst().orElseThrow();
  }

  @Test
  void shouldOverIssueOnUnderForecastWithinThePoolAndMeasureIt() {
    KernelRun k = new KernelRun();
    for (int n = 1; n <= 3; n++) {
      k.feed(new NodeChanged("node-" + n, 10, false, at(D.minusDays(4), "00:00")));
    }
    risingHistory(k);
    k.usage("chat", 10, at(D, "08:20"), 25, 4); // the RESERVE of 10 at 08:45
    k.usage("chat", 10, at(D, "08:45"), 15, 0);
    int mark = k.effects.size();
    ServiceHolding.Fallback before = k.state.fallback();
    // 26 GPUs in use against 20 held: 6 short; the fleet of 30 has 4 left to lend
    k.usage("chat", 26, at(D, "09:00"), 3, 0);
    k.ticks(at(D, "09:03:10"), at(D, "09:05:00"), TEN_SECONDS);

    List<Reservation> over = ofType(k.since(mark, Reservation.class),
        ReservationEvent.Type.OVER_ISSUE);
    assertThat(over).singleElement().satisfies(r -> {
      assertThat(r.at()).isEqualTo(at(D, "09:02"));
      assertThat(r.event().gpus()).isEqualTo(4);
      assertThat(r.event().reason()).contains("demand 26 > held 20").contains("pool idle 4");
      assertThat(r.basis()).isEqualTo(ForecastBasis.REGULAR_HISTORY);
    });
    ServiceHolding.Fallback after = k.state.fallback();
    assertThat(after.overIssues() - before.overIssues()).isEqualTo(1);
    assertThat(after.overIssuedGpus() - before.overIssuedGpus()).isEqualTo(4);
    long uncovered = after.uncovered() - before.uncovered();
    assertThat(uncovered).isPositive(); // 2 GPUs stay short while the pool is empty
    assertThat(after.uncoveredGpus() - before.uncoveredGpus()).isEqualTo(2 * uncovered);
  }

  @Test
  void shouldClassifySlotsOnTheFirstTickOfEachDayAndTagForecasts() {
    KernelRun k = new KernelRun();
    LocalDate day = D.minusDays(1);
    k.usage("chat", 2, at(day, "00:00"), 15, 0);
    k.usage("chat", 30, at(day, "06:00"), 15, 0);
    k.usage("chat", 15, at(day, "10:00"), 15, 0);
    k.usage("chat", 35, at(day, "18:00"), 15, 0);
    k.tick(at(day, "18:17"));
    int mark = k.effects.size();

    k.tick(at(D, "00:00:10"));

    List<ForecastEffect.SlotMapComputed> maps = k.since(mark, ForecastEffect.SlotMapComputed.class);
    assertThat(maps).singleElement().satisfies(m -> {
      assertThat(m.map().day()).isEqualTo(D);
      assertThat(m.map().classes()).hasSize(96);
      assertThat(m.map().classes().get(72)).isEqualTo(SlotClass.PEAK);
      assertThat(m.map().classes().get(12)).isEqualTo(SlotClass.DEEP_TROUGH);
      assertThat(m.map().services()).isEqualTo(1);
    });
    k.tick(at(D, "17:45:00"));
    assertThat(k.all(Forecast.class).get(k.all(Forecast.class).size() - 1).slotClass())
        .isEqualTo(SlotClass.PEAK);
  }

  @Test
  void shouldDecideTheSameWhateverOrderTheInputsOfATickArrive() {
    List<List<ForecastInput>> batches = scenario();
    KernelRun inOrder = new KernelRun();
    KernelRun shuffled = new KernelRun();
    SplittableRandom random = new SplittableRandom(20261201);
    for (List<ForecastInput> batch : batches) {
      List<ForecastInput> inputs = batch.subList(0, batch.size() - 1);
      ForecastInput tick = batch.get(batch.size() - 1);
      inputs.forEach(inOrder::feed);
      List<ForecastInput> mixed = new ArrayList<>(inputs);
      Collections.shuffle(mixed, new java.util.Random(random.nextLong()));
      mixed.forEach(shuffled::feed);
      inOrder.feed(tick);
      shuffled.feed(tick);
    }

    assertThat(shuffled.effects).isEqualTo(inOrder.effects);
    assertThat(inOrder.all(ForecastEffect.Refused.class)).isEmpty();
    assertThat(shuffled.all(Reservation.class)).isNotEmpty();
    assertThat(tablesOf(shuffled.state)).isEqualTo(tablesOf(inOrder.state));
  }

  @Test
  void shouldRestoreItsStateExactlyAndDecideTheSameAfterwards() {
    List<List<ForecastInput>> batches = scenario();
    int half = batches.size() / 2;
    while (batches.get(half).size() < 2) {
      half++;
    }
    KernelRun running = new KernelRun();
    for (int b = 0; b < half; b++) {
      batches.get(b).forEach(running::feed);
    }
    // inputs that wait in the inbox across the restore
    List<ForecastInput> next = batches.get(half);
    next.subList(0, next.size() - 1).forEach(running::feed);

    // what an adapter does: every table's rows and the inbox entries under their sequences
    Map<String, Map<String, ?>> rows = new LinkedHashMap<>();
    for (String t : ForecastState.TABLES) {
      rows.put(t, new LinkedHashMap<>(running.state.table(t).asMap()));
    }
    java.util.TreeMap<Long, ForecastInput> waiting = new java.util.TreeMap<>();
    for (Inbox.Entry<ForecastInput> e : running.state.inbox().entries()) {
      waiting.put(e.position().seq(), e.input());
    }
    assertThat(waiting).isNotEmpty();
    KernelRun restored = new KernelRun();
    restored.state = ForecastState.restore(rows, waiting);

    assertThat(restored.state.snapshot()).isEqualTo(running.state.snapshot());
    int mark = running.effects.size();
    running.feed(next.get(next.size() - 1));
    restored.feed(next.get(next.size() - 1));
    for (int b = half + 1; b < batches.size(); b++) {
      batches.get(b).forEach(running::feed);
      batches.get(b).forEach(restored::feed);
    }
    assertThat(restored.effects).isEqualTo(running.effects.subList(mark, running.effects.size()));
    assertThat(restored.all(Reservation.class)).isNotEmpty();
    assertThat(restored.state.snapshot()).isEqualTo(running.state.snapshot());
  }

  /**
   * Batches of inputs, each ending with its tick: two services (one with jobs and STALE
   * samples), a training job, nodes joining and draining, over three days and the morning of D.
   */
  static List<List<ForecastInput>> scenario() {
    List<List<ForecastInput>> batches = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(7);
    Instant start = at(D.minusDays(3), "08:00");
    List<ForecastInput> first = new ArrayList<>();
    first.add(new NodeChanged("n1", 16, false, start.minusSeconds(60)));
    first.add(new NodeChanged("n2", 16, false, start.minusSeconds(60)));
    first.add(new JobDeclared("train-1", "TRAINING", null, start.minusSeconds(30)));
    first.add(new ForecastInput.Ticked(new io.tideline.core.kernel.Tick(start, KernelRun.CLUSTER)));
    batches.add(first);
    for (int day = 0; day < 4; day++) {
      batches.add(List.of(new ForecastInput.Ticked(new io.tideline.core.kernel.Tick(
          at(D.minusDays(3 - day), "07:59:30"), KernelRun.CLUSTER))));
      for (int m = 0; m < 75; m++) {
        Instant minute = at(D.minusDays(3 - day), "08:00").plus(Duration.ofMinutes(m));
        List<ForecastInput> batch = new ArrayList<>();
        int chat = 6 + (m >= 60 ? 8 : 0) + r.nextInt(3);
        for (int g = 0; g < 16; g++) {
          Instant t = minute.plusSeconds(5 + r.nextInt(50));
          String gpu = "chat-gpu-" + g;
          if (g < chat) {
            batch.add(g == 3 && m % 17 == 5 ? stale(gpu, null, t) : ok(gpu, "chat", "chat-" + g, t));
            if (r.nextInt(4) == 0) { // a second sample of the same minute
              batch.add(ok(gpu, "chat", "chat-" + g, t.plusSeconds(2)));
            }
          } else {
            batch.add(ok(gpu, null, null, t));
          }
        }
        for (int g = 0; g < 4; g++) {
          batch.add(ok("search-gpu-" + g, g < 2 + (m / 30) ? "search" : null, null,
              minute.plusSeconds(40)));
          batch.add(ok("train-gpu-" + g, null, "train-1", minute.plusSeconds(45)));
        }
        if (day == 3 && m == 20) {
          batch.add(new NodeChanged("n2", 0, false, minute.plusSeconds(1)));
        }
        batch.add(new ForecastInput.Ticked(new io.tideline.core.kernel.Tick(
            minute.plusSeconds(60), KernelRun.CLUSTER)));
        batches.add(batch);
        if (m % 15 == 14) { // a tick between two minutes
          batches.add(List.of(new ForecastInput.Ticked(new io.tideline.core.kernel.Tick(
              minute.plusSeconds(60 + 15), KernelRun.CLUSTER))));
        }
      }
    }
    return batches;
  }

  private static Map<String, Object> tablesOf(ForecastState s) {
    Map<String, Object> m = new LinkedHashMap<>(s.snapshot());
    m.remove(ForecastState.INBOX); // arrival sequences differ with arrival order, by design
    m.remove(ForecastState.INBOX + ".nextSeq");
    return m;
  }

  private static Map<Count, Integer> totals(KernelRun k) {
    Map<Count, Integer> out = new java.util.EnumMap<>(Count.class);
    for (Count c : Count.values()) {
      out.put(c, 0);
    }
    k.all(Tally.class).forEach(t -> t.counts().forEach((c, n) -> out.merge(c, n, Integer::sum)));
    return out;
  }
}
