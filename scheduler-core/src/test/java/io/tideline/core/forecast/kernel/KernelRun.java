package io.tideline.core.forecast.kernel;

import io.tideline.core.forecast.kernel.ForecastInput.GpuObserved;
import io.tideline.core.forecast.kernel.ForecastInput.Ticked;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Tick;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * A forecast kernel driven like its adapters drive it: inputs, then ticks; the state and every
 * effect kept. Builders for GPU observations with explicit event times.
 */
final class KernelRun {

  static final String CLUSTER = "default";

  final ForecastKernel kernel;
  ForecastState state = ForecastState.empty();
  final List<ForecastEffect> effects = new ArrayList<>();
  final List<ForecastInput> fed = new ArrayList<>();

  KernelRun(ForecastKernelConfig config) {
    this.kernel = new ForecastKernel(config);
  }

  KernelRun() {
    this(ForecastKernelConfig.defaults(CLUSTER, ZoneOffset.UTC));
  }

  static Instant at(LocalDate day, String time) {
    return LocalDateTime.of(day, LocalTime.parse(time)).toInstant(ZoneOffset.UTC);
  }

  static GpuObserved ok(String gpu, String service, String job, Instant at) {
    return new GpuObserved(gpu, "node-" + gpu, at, false, service, job);
  }

  static GpuObserved stale(String gpu, String service, Instant at) {
    return new GpuObserved(gpu, "node-" + gpu, at, true, service, null);
  }

  List<ForecastEffect> feed(ForecastInput input) {
    fed.add(input);
    Step<ForecastState, ForecastEffect> step = kernel.step(Instant.EPOCH, state, input);
    state = step.state();
    effects.addAll(step.effects());
    return step.effects();
  }

  List<ForecastEffect> tick(Instant at) {
    return feed(new Ticked(new Tick(at, CLUSTER)));
  }

  /** Ticks every {@code step} from {@code from} to {@code to} inclusive. */
  void ticks(Instant from, Instant to, Duration step) {
    for (Instant t = from; !t.isAfter(to); t = t.plus(step)) {
      tick(t);
    }
  }

  /**
   * {@code gpus} GPUs of {@code service} in use every minute of {@code [from, from + minutes)}
   * (one OK sample per GPU per minute at second 30) and {@code idle} idle GPUs, each minute
   * followed by a tick at its end.
   */
  void usage(String service, int gpus, Instant from, int minutes, int idle) {
    for (int m = 0; m < minutes; m++) {
      Instant t = from.plus(Duration.ofMinutes(m)).plusSeconds(30);
      for (int g = 0; g < gpus; g++) {
        feed(ok(service + "-gpu-" + g, service, service + "-" + g, t));
      }
      for (int g = 0; g < idle; g++) {
        feed(ok("spare-gpu-" + g, null, null, t));
      }
      tick(from.plus(Duration.ofMinutes(m + 1)));
    }
  }

  <E extends ForecastEffect> List<E> all(Class<E> type) {
    return effects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  <E extends ForecastEffect> List<E> since(int from, Class<E> type) {
    return effects.subList(from, effects.size()).stream().filter(type::isInstance)
        .map(type::cast).toList();
  }
}
