package io.tideline.platform.kernel.forecast;

import io.tideline.core.forecast.kernel.ForecastEffect;
import io.tideline.core.forecast.kernel.ForecastInput;
import io.tideline.core.forecast.kernel.ForecastKernel;
import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.core.kernel.Step;
import io.tideline.events.LedgerInput;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.KernelHost;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * The forecast kernel behind the common {@link KernelHost} contract, for the in-process twin:
 * the {@link ForecastHost}'s check and mapping, one {@link ForecastKernel#step}, the
 * {@link ForecastHost#encode} of each effect — the same three calls forecaster-svc's kernel task
 * makes per record ({@code KernelProcessor}), with nothing persisted (the service keeps its state
 * in its own stores through {@link ForecastHost#toStore}).
 */
public final class ForecastKernelHost implements KernelHost<ForecastState> {

  private final ForecastHost host;
  private final ForecastKernel kernel;

  /** A host with the default input bounds. */
  public ForecastKernelHost(ForecastKernelConfig config) {
    this(config, new EventValidator(InputBounds.DEFAULTS));
  }

  public ForecastKernelHost(ForecastKernelConfig config, EventValidator validator) {
    this.host = new ForecastHost(config, validator);
    this.kernel = new ForecastKernel(config);
  }

  /** The topics the forecaster reads. */
  public static List<String> inputTopics() {
    return ForecastHost.INPUT_TOPICS;
  }

  @Override
  public ForecastState empty() {
    return ForecastState.empty();
  }

  @Override
  public Instant clock(ForecastState state) {
    return state.clockOf(host.config().cluster()).lastTick();
  }

  /**
   * Decodes (the service's intake check: a refusal is a dead letter), steps, encodes. The record
   * timestamp is unknown here (-1: the event time is judged against the kernel's clock only, as
   * the service's kernel task does after its intake).
   */
  @Override
  public HostResult<ForecastState> offer(Instant now, ForecastState state, String topic,
      SpecificRecord value, LedgerInput envelope) {
    ForecastHost.Decoded d = host.decode(topic, null, value, -1);
    if (d instanceof ForecastHost.Decoded.Refused r) {
      return new HostResult<>(state, List.of(), List.of(),
          List.of(new HostResult.Refusal(r.reason(), -1)), List.of());
    }
    // one input, or a batch's GPUs stepped back to back as their samples would be (ADR 0040)
    ForecastState next = state;
    List<HostRecord> records = new ArrayList<>();
    List<HostResult.Refusal> refused = new ArrayList<>();
    List<ForecastEffect> effects = new ArrayList<>();
    for (ForecastInput input : ForecastHost.inputs(d)) {
      Step<ForecastState, ForecastEffect> step = kernel.step(now, next, input);
      next = step.state();
      effects.addAll(step.effects());
      for (ForecastEffect e : step.effects()) {
        if (e instanceof ForecastEffect.Refused r) {
          refused.add(new HostResult.Refusal(r.reason(), -1));
        } else {
          for (ForecastHost.Emit emit : host.encode(e)) {
            records.add(new HostRecord(emit.topic(), emit.key(), emit.value()));
          }
        }
      }
    }
    return new HostResult<>(next, records, List.of(), refused, effects);
  }
}
