package io.tideline.core.forecast.bench;

import io.tideline.core.forecast.ForecastConfig;
import io.tideline.core.forecast.HolidayCalendar;
import io.tideline.core.forecast.SlotForecast;
import io.tideline.core.forecast.SlotForecaster;
import io.tideline.core.forecast.SlotHistory;
import io.tideline.core.slots.SlotClassifier;
import io.tideline.core.slots.SlotClassifierConfig;
import io.tideline.core.slots.SlotMap;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of the forecaster service's per-event work on a full state: 14 days x 96 slots with one
 * sample a minute (20,160 samples). What a Streams task pays per telemetry record (decode, record,
 * encode) and per clock tick (forecast one slot), and the periodic F4 re-evaluation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SlotHistoryBenchmark {

  private static final Instant START = Instant.parse("2026-11-02T00:00:00Z");
  private final SlotForecaster forecaster = new SlotForecaster(ForecastConfig.DEFAULTS);
  private final HolidayCalendar calendar = HolidayCalendar.none(ZoneOffset.UTC);
  private final SlotClassifier classifier = new SlotClassifier(SlotClassifierConfig.DEFAULTS);
  private SlotHistory history;
  private double[] profile;
  private Instant nextSlot;
  private long tick;

  @Setup
  public void fill() {
    history = SlotHistory.empty("svc", ZoneOffset.UTC, ForecastConfig.DEFAULTS);
    SplittableRandom random = new SplittableRandom(7);
    for (int minute = 0; minute < 14 * 24 * 60; minute++) {
      double tide = 60 + 40 * Math.sin(2 * Math.PI * (minute % 1440) / 1440.0);
      history.record(START.plusSeconds(60L * minute), Math.round(tide + random.nextInt(10)));
    }
    profile = history.meanProfile(LocalDate.parse("2026-11-16"), 14, calendar);
    nextSlot = Instant.parse("2026-11-16T08:00:00Z");
  }

  @Benchmark
  public SlotForecast forecastOneSlot() {
    return forecaster.forecast(history, nextSlot, calendar);
  }

  @Benchmark
  public SlotHistory recordOneMinuteCopyOnWrite() {
    return history.plus(Instant.parse("2026-11-15T23:59:00Z"), 42 + (tick++ & 7));
  }

  @Benchmark
  public SlotMap classifyNinetySixSlots() {
    return classifier.classify(history.grid(), profile);
  }
}
