package io.tideline.forecaster.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.tideline.events.CapacityReservation;
import io.tideline.events.DeadLetter;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.WorkloadClass;
import io.tideline.testkit.JobSubmissions;
import io.tideline.events.ReservationAction;
import io.tideline.events.SampleState;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotClassMap;
import io.tideline.events.SlotForecast;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.forecaster.query.ForecastQueries.ForecastView;
import io.tideline.testkit.RegistryFixture;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenarios of the forecast topology in a {@code TopologyTestDriver}, with explicit event times
 * and the real schema registry behind the serdes. The history: on three regular days the service
 * {@code chat} runs 10 GPUs from 08:30 and 20 GPUs in the 09:00 slot, so on the fourth day the
 * 09:00 slot is forecast at 20 (p90) while 10 are in use at 08:45.
 */
class ForecastTopologyTest {

  static final LocalDate D = LocalDate.parse("2026-11-10");
  static final int IDLE = 30;

  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();

  static Instant at(LocalDate day, String time) {
    return LocalDateTime.of(day, LocalTime.parse(time)).toInstant(ZoneOffset.UTC);
  }

  static ForecastSettings settings() {
    return ForecastSettings.defaults(ForecastDriver.CLUSTER, "forecaster-svc", ZoneOffset.UTC);
  }

  /**
   * The settings with the forecaster reduced to its same-slot statistics (no blend with the last
   * level, no calibration, no shift detection), so a scenario's figures follow from its
   * history by hand; the forecaster's own quality is scored in scheduler-core.
   */
  static ForecastSettings sameSlot() {
    ForecastSettings d = settings();
    return new ForecastSettings(d.service(), d.kernel().withForecast(d.forecast().withCalibration(
        io.tideline.core.forecast.CalibrationConfig.DEFAULTS.withSeasonalWeight(1.0)
            .withShiftConfirm(java.time.Duration.ZERO).withMinResiduals(Integer.MAX_VALUE))));
  }

  ForecastDriver driver(ForecastSettings settings) {
    return new ForecastDriver(registry.url(), settings);
  }

  /** Three regular days before D: 10 GPUs 08:30-09:00, 20 GPUs 09:00-09:15. */
  static void risingHistory(ForecastDriver f) {
    for (int d = 3; d >= 1; d--) {
      LocalDate day = D.minusDays(d);
      f.usage("chat", 10, at(day, "08:30"), 30, IDLE);
      f.usage("chat", 20, at(day, "09:00"), 15, IDLE);
      f.settle(at(day, "09:16"));
    }
  }

  /** The morning of D: 10 GPUs from 08:20 to 08:44, then the ticks up to 08:45:00. */
  static void morningUntilReserve(ForecastDriver f) {
    f.usage("chat", 10, at(D, "08:20"), 25, IDLE);
    f.ticks(at(D, "08:44:00"), at(D, "08:45:00"));
  }

  static List<CapacityReservation> ofType(List<CapacityReservation> all, ReservationAction a) {
    return all.stream().filter(r -> r.getAction() == a).toList();
  }

  @Test
  void shouldReserveExactlyFifteenMinutesAhead() {
    try (ForecastDriver f = driver(settings())) {
      risingHistory(f);
      f.usage("chat", 10, at(D, "08:20"), 25, IDLE);
      f.reservations();
      f.forecasts();

      f.ticks(at(D, "08:44:00"), at(D, "08:46:00"));

      List<CapacityReservation> reservations = f.reservations();
      assertThat(reservations).hasSize(1);
      CapacityReservation r = reservations.get(0);
      assertThat(r.getAction()).isEqualTo(ReservationAction.RESERVE);
      assertThat(r.getServiceId()).isEqualTo("chat");
      assertThat(r.getGpus()).isEqualTo(10.0);
      assertThat(r.getIssuedAt()).isEqualTo(at(D, "08:45:00"));
      assertThat(r.getValidFrom()).isEqualTo(at(D, "09:00"));
      assertThat(r.getValidUntil()).isEqualTo(at(D, "09:15"));
      assertThat(r.getQuantile()).isEqualTo("p90");
      assertThat(r.getReservationId()).isEqualTo("chat@" + at(D, "09:00") + "/RESERVE");

      List<SlotForecast> forecasts = f.forecasts();
      assertThat(forecasts).hasSize(1);
      SlotForecast fc = forecasts.get(0);
      assertThat(fc.getSlotStart()).isEqualTo(at(D, "09:00"));
      assertThat(fc.getComputedAt()).isEqualTo(at(D, "08:45:00"));
      assertThat(fc.getP90()).isCloseTo(20.0, withinPercentage(1));
      assertThat(fc.getSampleDays()).isEqualTo(3);
      assertThat(fc.getHoliday()).isFalse();
      assertThat(fc.getHistoricalPeak()).isEqualTo(20.0);
    }
  }

  /** The forecasts and reservations of a rising morning, its usage sent as samples or batches. */
  private List<Object> risingMorningOnNodes(boolean batched) {
    try (ForecastDriver f = driver(settings())) {
      for (int d = 3; d >= 1; d--) {
        LocalDate day = D.minusDays(d);
        f.usageOnNodes("chat", 10, at(day, "08:30"), 30, IDLE, batched);
        f.usageOnNodes("chat", 20, at(day, "09:00"), 15, IDLE, batched);
        f.settle(at(day, "09:16"));
      }
      f.usageOnNodes("chat", 12, at(D, "08:20"), 25, IDLE, batched);
      f.ticks(at(D, "08:44:00"), at(D, "09:20:00"));
      List<Object> out = new ArrayList<>(f.reservations());
      out.addAll(f.forecasts());
      assertThat(f.deadLetters(TopicCatalogue.GPU_TELEMETRY_BATCHES)).isEmpty();
      return out;
    }
  }

  @Test
  void shouldForecastAndReserveTheSameFromABatchAsFromItsSamples() {
    List<Object> samples = risingMorningOnNodes(false);
    List<Object> batches = risingMorningOnNodes(true);

    assertThat(samples).anySatisfy(r -> assertThat(r).isInstanceOf(CapacityReservation.class));
    assertThat(batches).isEqualTo(samples);
  }

  @Test
  void shouldDeadLetterABadBatchWholeWithTheReasonAndKeepGoing() {
    try (ForecastDriver f = driver(settings())) {
      Instant at = at(D, "08:00:30");
      f.tick(at(D, "08:00"));
      GpuSample one = ForecastDriver.sample("g1", "chat", at, SampleState.OK);
      GpuSample two = ForecastDriver.sample("g2", "chat", at, SampleState.OK);
      one.setNodeId("n1");
      two.setNodeId("n1");
      two.setGpuIndex(1);
      GpuSampleBatch twice = io.tideline.platform.telemetry.SampleBatches
          .ofScrape(List.of(one, two), 64).get(0);
      twice.getGpus().get(1).setGpuId("g1");
      f.send(twice);
      GpuSampleBatch hot = io.tideline.platform.telemetry.SampleBatches
          .ofScrape(List.of(one, two), 64).get(0);
      hot.getGpus().get(1).setUtilizationPct(150.0);
      f.send(hot);
      f.sendRawBatch("n1".getBytes(java.nio.charset.StandardCharsets.UTF_8),
          "not avro".getBytes(java.nio.charset.StandardCharsets.UTF_8), at);

      List<DeadLetter> letters = f.deadLetters(TopicCatalogue.GPU_TELEMETRY_BATCHES);
      assertThat(letters).hasSize(3);
      assertThat(letters.get(0).getError()).contains("GPU g1 twice");
      assertThat(letters.get(1).getError()).contains("gpus[1]").contains("utilizationPct");
      assertThat(letters.get(2).getErrorClass()).isEqualTo("DESERIALIZATION");
      // and a good batch after them is read
      f.send(io.tideline.platform.telemetry.SampleBatches.ofScrape(List.of(one, two), 64)
          .get(0));
      assertThat(f.meters.count("tideline.forecast.samples", "outcome", "passed")).isEqualTo(2.0);
    }
  }

  @Test
  void shouldReleaseUnusedReservedGpusTenMinutesEarly() {
    try (ForecastDriver f = driver(sameSlot())) {
      risingHistory(f);
      f.reservations(); // the history days' own (cold-start) reservations
      morningUntilReserve(f);
      assertThat(ofType(f.reservations(), ReservationAction.RESERVE)).hasSize(1);

      // The rise does not come: 12 GPUs in the 09:00 slot instead of 20.
      f.usage("chat", 10, at(D, "08:45"), 15, IDLE);
      f.usage("chat", 12, at(D, "09:00"), 5, IDLE);
      f.ticks(at(D, "08:45:10"), at(D, "09:06:00"));

      // (the 09:15 slot has no same-slot history: a cold-start RESERVE for it at 09:00)
      List<CapacityReservation> reservations = ofType(f.reservations(), ReservationAction.RELEASE);
      assertThat(reservations).hasSize(1);
      CapacityReservation release = reservations.get(0);
      assertThat(release.getAction()).isEqualTo(ReservationAction.RELEASE);
      assertThat(release.getGpus()).isEqualTo(8.0);
      assertThat(release.getIssuedAt()).isEqualTo(at(D, "09:05:00"));
      assertThat(release.getValidFrom()).isEqualTo(at(D, "09:05:00"));
      assertThat(release.getValidUntil()).isEqualTo(at(D, "09:15"));
      assertThat(release.getReason()).contains("8 of 10 reserved GPUs unused");
    }
  }

  @Test
  void shouldOverIssueTheShortfallOnUnderForecast() {
    try (ForecastDriver f = driver(sameSlot())) {
      risingHistory(f);
      morningUntilReserve(f);
      f.reservations();

      // 26 GPUs in use against 20 held: 6 short.
      f.usage("chat", 10, at(D, "08:45"), 15, IDLE);
      f.usage("chat", 26, at(D, "09:00"), 3, IDLE);
      f.ticks(at(D, "08:45:10"), at(D, "09:03:00"));

      List<CapacityReservation> overIssues = ofType(f.reservations(),
          ReservationAction.OVER_ISSUE);
      assertThat(overIssues).hasSize(1);
      CapacityReservation o = overIssues.get(0);
      assertThat(o.getAction()).isEqualTo(ReservationAction.OVER_ISSUE);
      assertThat(o.getGpus()).isEqualTo(6.0);
      assertThat(o.getIssuedAt()).isEqualTo(at(D, "09:02:00"));
      assertThat(o.getValidUntil()).isEqualTo(at(D, "09:15"));
      assertThat(o.getReason()).contains("demand 26 > held 20");
    }
  }

  @Test
  void shouldCapOverIssueAtTheConfiguredMaximum() {
    try (ForecastDriver f = driver(sameSlot())) {
      risingHistory(f);
      morningUntilReserve(f);
      f.reservations();

      // 40 GPUs in use against 20 held: 20 short, but the cap is 16.
      f.usage("chat", 10, at(D, "08:45"), 15, IDLE);
      f.usage("chat", 40, at(D, "09:00"), 4, IDLE);
      f.ticks(at(D, "08:45:10"), at(D, "09:04:00"));

      List<CapacityReservation> overIssues = ofType(f.reservations(),
          ReservationAction.OVER_ISSUE);
      assertThat(overIssues).hasSize(1);
      assertThat(overIssues.get(0).getGpus()).isEqualTo(16.0);
      assertThat(overIssues.get(0).getReason()).contains("short 20; cap 16");
    }
  }

  @Test
  void shouldForecastAHolidaySlotFromHolidayHistory() {
    // D is a holiday by configuration; three earlier holidays come from the topic.
    try (ForecastDriver f = driver(sameSlot().withHolidays(List.of(D)))) {
      List<LocalDate> pastHolidays = List.of(D.minusDays(40), D.minusDays(30), D.minusDays(20));
      pastHolidays.forEach(h -> f.declareHoliday(h, at(D.minusDays(60), "00:00")));
      for (LocalDate h : pastHolidays) {
        f.usage("chat", 30, at(h, "09:00"), 15, IDLE);
        f.settle(at(h, "09:16"));
      }
      risingHistory(f);
      f.reservations();
      f.forecasts();

      morningUntilReserve(f);

      SlotForecast fc = f.forecasts().stream()
          .filter(x -> x.getSlotStart().equals(at(D, "09:00"))).findFirst().orElseThrow();
      assertThat(fc.getHoliday()).isTrue();
      assertThat(fc.getP90()).isCloseTo(30.0, withinPercentage(1));
      assertThat(fc.getSampleDays()).isEqualTo(3);
      List<CapacityReservation> reservations = f.reservations().stream()
          .filter(r -> r.getValidFrom().equals(at(D, "09:00"))).toList();
      assertThat(reservations).hasSize(1);
      assertThat(reservations.get(0).getGpus()).isEqualTo(20.0);
      assertThat(reservations.get(0).getReason()).contains("HOLIDAY_HISTORY");
      ForecastView view = f.queries().forecast("chat", at(D, "09:00")).orElseThrow();
      assertThat(view.basis()).isEqualTo("HOLIDAY_HISTORY");
      assertThat(view.holiday()).isTrue();
    }
  }

  @Test
  void shouldDeadLetterUndecodableRecordsWithTheReasonAndKeepGoing() {
    try (ForecastDriver f = driver(settings())) {
      Instant early = at(D.minusDays(5), "00:00");
      f.sendRawTelemetry("gpu-x".getBytes(StandardCharsets.UTF_8),
          "this is not avro".getBytes(StandardCharsets.UTF_8), early);
      f.send(ForecastDriver.sample(" ", "chat", early, SampleState.OK));
      f.sendRawClock(new byte[] {0, 0, 0, 0, 42, 1, 2}, early);
      f.sendRawHoliday("2026-12-25",
          holidayBytes(f, "2026-12-24"), early);

      risingHistory(f);
      morningUntilReserve(f);

      List<DeadLetter> telemetry = f.deadLetters("gpu.telemetry");
      assertThat(telemetry).hasSize(2);
      assertThat(telemetry.get(0).getErrorClass()).isEqualTo("DESERIALIZATION");
      assertThat(telemetry.get(0).getError()).contains("not a GpuSample");
      assertThat(StandardCharsets.UTF_8.decode(telemetry.get(0).getOriginalValue()).toString())
          .isEqualTo("this is not avro");
      assertThat(telemetry.get(0).getOffset()).isEqualTo(0);
      assertThat(telemetry.get(0).getService()).isEqualTo("forecaster-svc");
      assertThat(telemetry.get(1).getErrorClass()).isEqualTo("VALIDATION");
      assertThat(telemetry.get(1).getError()).isEqualTo("GpuSample: gpuId is required");
      assertThat(telemetry.get(1).getOffset()).isEqualTo(1);
      DeadLetter tick = f.deadLetters("cluster.clock").get(0);
      assertThat(tick.getErrorClass()).isEqualTo("DESERIALIZATION");
      assertThat(tick.getError()).contains("not a ClockTick");
      DeadLetter holiday = f.deadLetters("forecast.holidays").get(0);
      assertThat(holiday.getErrorClass()).isEqualTo("VALIDATION");
      assertThat(holiday.getError()).contains("differs from its key '2026-12-25'");

      // ...and the topology kept going: the reservation still comes at 08:45.
      List<CapacityReservation> reserve = ofType(f.reservations(), ReservationAction.RESERVE)
          .stream().filter(r -> r.getValidFrom().equals(at(D, "09:00"))).toList();
      assertThat(reserve).hasSize(1);
      assertThat(reserve.get(0).getIssuedAt()).isEqualTo(at(D, "08:45:00"));
      assertThat(f.meters.count("tideline.forecast.dead.letters", "topic", "gpu.telemetry"))
          .isEqualTo(2);
    }
  }

  @Test
  void shouldDeadLetterASampleTimedFarAheadOfTheClockAndLetItChangeNothing() {
    try (ForecastDriver f = driver(settings())) {
      LocalDate day = D.minusDays(1);
      f.usage("chat", 4, at(day, "09:00"), 5, 0);
      // a sample from the year 2300: the kernel refuses it, it moves no clock
      f.send(ForecastDriver.sample("chat-gpu-0", "chat", at(D.plusYears(274), "09:00"),
          SampleState.OK));
      f.usage("chat", 4, at(day, "09:05"), 5, 0);
      f.settle(at(day, "09:10"));

      List<DeadLetter> letters = f.deadLetters("gpu.telemetry");
      assertThat(letters).singleElement().satisfies(l -> {
        assertThat(l.getErrorClass()).isEqualTo("VALIDATION");
        assertThat(l.getError()).contains("after the forecaster's clock");
        assertThat(l.getOriginalTopic()).isEqualTo("gpu.telemetry");
      });
      ForecastView slot = f.queries().quantiles("chat", D, 36).orElseThrow();
      assertThat(slot.samples()).isEqualTo(10);
      assertThat(slot.p99()).isCloseTo(4.0, withinPercentage(1));
    }
  }

  @Test
  void shouldNeverReadStaleSamplesAsZeroUsage() {
    try (ForecastDriver f = driver(settings())) {
      LocalDate day = D.minusDays(1);
      f.usage("chat", 10, at(day, "09:00"), 5, IDLE); // 09:00-09:04 all OK
      // 09:05-09:09: five of the ten GPUs go STALE (the scrape fails; no service in the sample).
      for (int m = 5; m < 10; m++) {
        Instant t = at(day, "09:00").plusSeconds(60L * m + 30);
        for (int g = 0; g < 10; g++) {
          f.send(ForecastDriver.sample("chat-gpu-" + g, g < 5 ? null : "chat", t,
              g < 5 ? SampleState.STALE : SampleState.OK));
        }
      }
      f.usage("chat", 10, at(day, "09:10"), 5, IDLE); // 09:10-09:14 all OK again
      f.settle(at(day, "09:16"));

      ForecastView view = f.queries().quantiles("chat", D, 36).orElseThrow();
      // 09:05 and 09:06 carry the stale GPUs (within 2 min of their last OK sample); 09:07-09:09
      // are unknown and not recorded: 12 minutes, every one at 10 GPUs, none at 5.
      assertThat(view.samples()).isEqualTo(12);
      assertThat(view.p50()).isCloseTo(10.0, withinPercentage(1));
      assertThat(view.p99()).isCloseTo(10.0, withinPercentage(1));
      assertThat(f.meters.count("tideline.forecast.gpu.minutes", "outcome", "carried"))
          .isEqualTo(10);
      assertThat(f.meters.count("tideline.forecast.minutes", "outcome", "skipped_unknown"))
          .isEqualTo(3);
    }
  }

  @Test
  void shouldClassifySlotsDailyAndTagForecastsWithTheSlotClass() {
    try (ForecastDriver f = driver(settings())) {
      LocalDate day = D.minusDays(1);
      f.usage("chat", 2, at(day, "00:00"), 15, 0);
      f.usage("chat", 30, at(day, "06:00"), 15, 0);
      f.usage("chat", 15, at(day, "10:00"), 15, 0);
      f.usage("chat", 35, at(day, "18:00"), 15, 0);
      f.usage("search", 5, at(day, "18:00"), 15, 0);
      f.settle(at(day, "18:16"));
      f.slotMaps();

      f.tick(at(D, "00:00:10"));

      List<SlotClassMap> maps = f.slotMaps();
      assertThat(maps).hasSize(1);
      SlotClassMap map = maps.get(0);
      assertThat(map.getDay()).isEqualTo(D.toString());
      assertThat(map.getClasses()).hasSize(96);
      assertThat(map.getServices()).isEqualTo(2);
      assertThat(map.getProfile().get(72)).isCloseTo(40.0, within(0.5));
      assertThat(map.getClasses().get(72)).isEqualTo(SlotClass.PEAK);
      assertThat(map.getClasses().get(12)).isEqualTo(SlotClass.DEEP_TROUGH);
      assertThat(map.getClasses().get(40).ordinal())
          .isBetween(map.getClasses().get(12).ordinal(), SlotClass.PEAK.ordinal());
      assertThat(f.queries().slotMap().orElseThrow().classes().get(72)).isEqualTo("PEAK");

      f.tick(at(D, "17:45:00"));
      SlotForecast evening = f.forecasts().stream()
          .filter(fc -> fc.getServiceId().equals("chat")
              && fc.getSlotStart().equals(at(D, "18:00")))
          .findFirst().orElseThrow();
      assertThat(evening.getSlotClass()).isEqualTo(SlotClass.PEAK);
    }
  }

  @Test
  void shouldAnswerForecastQueriesFromTheStores() {
    try (ForecastDriver f = driver(settings())) {
      risingHistory(f);

      ForecastView view = f.queries().forecast("chat", at(D, "09:07")).orElseThrow();
      assertThat(view.slotStart()).isEqualTo(at(D, "09:00"));
      assertThat(view.slotIndex()).isEqualTo(36);
      assertThat(view.p90()).isCloseTo(20.0, withinPercentage(1));
      assertThat(view.reserveGpus()).isEqualTo(20);
      assertThat(view.samples()).isEqualTo(45);
      assertThat(view.sampleDays()).isEqualTo(3);
      assertThat(f.queries().quantiles("chat", D, 36).orElseThrow().p90()).isEqualTo(view.p90());
      assertThat(f.queries().forecast("nobody", at(D, "09:00"))).isEmpty();
      assertThat(f.queries().services()).containsExactly("chat");
    }
  }

  @Test
  void shouldEndTheStaleCarryWhenTheJobEnds() {
    try (ForecastDriver f = driver(settings())) {
      LocalDate day = D.minusDays(1);
      // 09:00-09:01: chat runs two instances, job chat-a on gpu-a and job chat-b on gpu-b.
      for (String t : new String[] {"09:00:30", "09:01:30"}) {
        f.send(instanceSample("gpu-a", "chat-a", at(day, t), SampleState.OK));
        f.send(instanceSample("gpu-b", "chat-b", at(day, t), SampleState.OK));
      }
      // chat-b completes at 09:02:00; from then on both GPUs' scrapes fail (STALE, no owner).
      f.lifecycle("chat-b", LifecycleType.COMPLETED, at(day, "09:02:00"));
      for (String t : new String[] {"09:02:30", "09:03:30"}) {
        f.send(ForecastDriver.sample("gpu-a", null, at(day, t), SampleState.STALE));
        f.send(ForecastDriver.sample("gpu-b", null, at(day, t), SampleState.STALE));
      }
      f.settle(at(day, "09:05"));

      // 09:00-09:01 at 2; 09:02-09:03 carry gpu-a only (chat-b ended): 1, not 2 and not 0.
      ForecastView view = f.queries().quantiles("chat", D, 36).orElseThrow();
      assertThat(view.samples()).isEqualTo(4);
      assertThat(view.p50()).isCloseTo(1.0, withinPercentage(1));
      assertThat(view.p99()).isCloseTo(2.0, withinPercentage(1));
      assertThat(f.meters.count("tideline.forecast.gpu.minutes", "outcome", "carry_ended"))
          .isEqualTo(2);
    }
  }

  @Test
  void shouldKeepGpusInUsePerWorkloadClassAttributedByJob() {
    try (ForecastDriver f = driver(settings())) {
      LocalDate day = D.minusDays(1);
      f.submit(JobSubmissions.training("train-1").at(at(day, "08:00")).build());
      f.submit(JobSubmissions.training("probe-1").workloadClass(WorkloadClass.EXPLORATORY_TRAINING)
          .at(at(day, "08:00")).build());
      for (int m = 0; m < 5; m++) {
        Instant t = at(day, "09:00").plusSeconds(60L * m + 30);
        for (int g = 0; g < 3; g++) {
          f.send(ForecastDriver.jobSample("train-gpu-" + g, "train-1", t, SampleState.OK));
        }
        f.send(ForecastDriver.jobSample("probe-gpu", "probe-1", t, SampleState.OK));
        f.send(ForecastDriver.jobSample("odd-gpu", "never-submitted", t, SampleState.OK));
      }
      f.usage("chat", 2, at(day, "09:00"), 5, IDLE);
      f.settle(at(day, "09:06"));

      var q = f.queries();
      assertThat(q.workloadClasses()).containsExactly("EXPLORATORY_TRAINING",
          "ONLINE_INFERENCE", "TRAINING", "UNKNOWN");
      assertThat(q.classQuantiles("TRAINING", D, 36).orElseThrow().p50())
          .isCloseTo(3.0, withinPercentage(1));
      assertThat(q.classQuantiles("EXPLORATORY_TRAINING", D, 36).orElseThrow().p50())
          .isCloseTo(1.0, withinPercentage(1));
      assertThat(q.classQuantiles("ONLINE_INFERENCE", D, 36).orElseThrow().p50())
          .isCloseTo(2.0, withinPercentage(1));
      assertThat(q.classQuantiles("UNKNOWN", D, 36).orElseThrow().samples()).isEqualTo(5);
      assertThat(q.services()).containsExactly("chat"); // jobs are not services
      assertThat(f.meters.count("tideline.forecast.gpu.minutes", "outcome", "job")).isEqualTo(25);
    }
  }

  @Test
  void shouldBoundOverIssueByTheIdleGpusOfTheFleetInventory() {
    try (ForecastDriver f = driver(sameSlot())) {
      risingHistory(f);
      morningUntilReserve(f);
      f.reservations();
      // The fleet: 3 nodes of 10 GPUs. Telemetry sees no idle GPU in the slot (4 report
      // nothing), one GPU runs training: 30 - 26 - 1 = 3 can be lent.
      for (int n = 1; n <= 3; n++) {
        f.node("node-" + n, 10, NodeChange.JOINED, at(D, "08:45:05"));
      }
      f.submit(JobSubmissions.training("train-1").at(at(D, "08:00")).build());
      for (int m = 0; m < 18; m++) {
        Instant t = at(D, "08:45").plusSeconds(60L * m + 30);
        f.send(ForecastDriver.jobSample("train-gpu", "train-1", t, SampleState.OK));
        for (int g = 0; g < (m < 15 ? 10 : 26); g++) {
          f.send(ForecastDriver.sample("chat-gpu-" + g, "chat", t, SampleState.OK));
        }
        f.tick(t.plusSeconds(30)); // the clock moves with the samples (none is refused)
      }
      f.ticks(at(D, "08:45:10"), at(D, "09:03:00"));

      List<CapacityReservation> overIssues = ofType(f.reservations(),
          ReservationAction.OVER_ISSUE);
      assertThat(overIssues).hasSize(1);
      assertThat(overIssues.get(0).getGpus()).isEqualTo(3.0);
      assertThat(overIssues.get(0).getReason()).contains("short 6").contains("pool idle 3");
      // The 3 lent are drawn from the pool until they expire: no second grant on later ticks.
    }
  }

  @Test
  void shouldDeadLetterABadInventoryRecordAndKeepCountingTheFleet() {
    try (ForecastDriver f = driver(settings())) {
      f.sendRawInventory("node-x", "not avro".getBytes(StandardCharsets.UTF_8), at(D, "08:00"));
      f.node("node-1", 8, NodeChange.JOINED, at(D, "08:00:01"));
      f.node("node-1", 8, NodeChange.DRAINED, at(D, "08:00:02"));
      f.node("node-2", 4, NodeChange.JOINED, at(D, "08:00:03"));

      List<DeadLetter> letters = f.deadLetters("cluster.inventory");
      assertThat(letters).hasSize(1);
      assertThat(letters.get(0).getError()).contains("not a NodeInventory");
      // the inputs wait for a tick; then node-1 is drained (no new work) and node-2 lends 4
      f.tick(at(D, "08:01"));
      var nodes = f.driver.<String, io.tideline.state.ForecastNode>getKeyValueStore(
          ForecastStores.of(io.tideline.core.forecast.kernel.ForecastState.NODES));
      assertThat(nodes.get("node-1")).isNull();
      assertThat(nodes.get("node-2").getGpus()).isEqualTo(4);
    }
  }

  @Test
  void shouldDeadLetterATickStampedFarAheadOfItsRecordAndKeepTheClock() {
    try (ForecastDriver f = driver(settings())) {
      // a tick for D 12:00 on a record stamped three days earlier: further after its record's
      // timestamp than tideline.intake.max-lead (10 min), so the shared check refuses it; had it
      // moved the clock, every tick of the scenario below would be stale and nothing reserved
      f.tickStamped(at(D, "12:00"), at(D.minusDays(3), "08:00"));
      risingHistory(f);
      morningUntilReserve(f);

      assertThat(f.deadLetters("cluster.clock")).singleElement().satisfies(l -> {
        assertThat(l.getErrorClass()).isEqualTo("VALIDATION");
        assertThat(l.getError()).contains("time is " + at(D, "12:00"))
            .contains("tideline.intake.max-lead");
      });
      List<CapacityReservation> reserve = ofType(f.reservations(), ReservationAction.RESERVE)
          .stream().filter(r -> r.getValidFrom().equals(at(D, "09:00"))).toList();
      assertThat(reserve).singleElement()
          .satisfies(r -> assertThat(r.getIssuedAt()).isEqualTo(at(D, "08:45:00")));
    }
  }

  @Test
  void shouldRefuseAnInventoryTombstoneAndLetANodeLeaveWithLeft() {
    try (ForecastDriver f = driver(settings())) {
      f.node("node-1", 8, NodeChange.JOINED, at(D, "08:00:01"));
      f.sendRawInventory("node-1", null, at(D, "08:00:02"));
      f.tick(at(D, "08:01"));
      var nodes = f.driver.<String, io.tideline.state.ForecastNode>getKeyValueStore(
          ForecastStores.of(io.tideline.core.forecast.kernel.ForecastState.NODES));

      // the one tombstone rule: the inventory has none, the node is still there
      assertThat(f.deadLetters("cluster.inventory")).singleElement().satisfies(l -> {
        assertThat(l.getErrorClass()).isEqualTo("DESERIALIZATION");
        assertThat(l.getError()).contains("a node leaves with change LEFT");
      });
      assertThat(nodes.get("node-1").getGpus()).isEqualTo(8);

      f.node("node-1", 8, NodeChange.LEFT, at(D, "08:01:30"));
      f.tick(at(D, "08:02"));
      assertThat(nodes.get("node-1")).isNull();
    }
  }

  @Test
  void shouldHoldInputsToTheConfiguredIntakeBounds() {
    // tideline.intake.max-gpus-per-node 4: an 8-GPU node is refused with the platform's reason
    try (ForecastDriver f = new ForecastDriver(registry.url(), settings(),
        io.tideline.platform.validation.InputBounds.DEFAULTS.withMaxGpusPerNode(4))) {
      f.node("node-1", 8, NodeChange.JOINED, at(D, "08:00:01"));
      f.node("node-2", 4, NodeChange.JOINED, at(D, "08:00:02"));
      f.tick(at(D, "08:01"));

      assertThat(f.deadLetters("cluster.inventory")).singleElement().satisfies(l -> {
        assertThat(l.getErrorClass()).isEqualTo("VALIDATION");
        assertThat(l.getError()).contains("gpuCount must be in [1, 4], got 8");
      });
      var nodes = f.driver.<String, io.tideline.state.ForecastNode>getKeyValueStore(
          ForecastStores.of(io.tideline.core.forecast.kernel.ForecastState.NODES));
      assertThat(nodes.get("node-1")).isNull();
      assertThat(nodes.get("node-2").getGpus()).isEqualTo(4);
    }
  }

  /** A sample of a service instance: service {@code chat}, job {@code jobId}. */
  private static io.tideline.events.GpuSample instanceSample(String gpuId, String jobId,
      Instant at, SampleState state) {
    io.tideline.events.GpuSample s = ForecastDriver.sample(gpuId, "chat", at, state);
    s.setJobId(jobId);
    return s;
  }

  private static byte[] holidayBytes(ForecastDriver f, String date) {
    var s = io.tideline.platform.serde.AvroSerdes.<io.tideline.events.Holiday>valueSerializer(
        io.tideline.platform.serde.AvroSerdes.serdeConfig(registry.url(), true));
    return s.serialize("forecast.holidays", io.tideline.events.Holiday.newBuilder()
        .setDate(date).setName("Christmas Eve").setDeclaredAt(at(D, "00:00")).build());
  }
}
