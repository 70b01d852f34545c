package io.tideline.platform.kernel.quota;

import io.tideline.core.kernel.Step;
import io.tideline.core.quota.kernel.QuotaEffect;
import io.tideline.core.quota.kernel.QuotaInput;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.events.LedgerInput;
import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.KernelHost;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * The quota kernel as a {@link KernelHost}: records in, records out, through {@link QuotaHost}'s
 * mapping — what the in-process twin composes beside placement's and preemption's hosts.
 * quota-svc keeps its own processor and stores ({@code QuotaWriter}); both run this mapping and
 * the same kernel.
 */
public final class QuotaKernelHost implements KernelHost<QuotaKernelState> {

  private final QuotaHost host;

  public QuotaKernelHost(QuotaKernelConfig config) {
    this.host = new QuotaHost(config);
  }

  /** The topics quota reads. */
  public static List<String> inputTopics() {
    return List.of(QuotaHost.CONFIG, TopicCatalogue.JOBS_SUBMITTED,
        TopicCatalogue.JOBS_LIFECYCLE, TopicCatalogue.FORECAST_SLOTS,
        TopicCatalogue.GPU_TELEMETRY, TopicCatalogue.GPU_TELEMETRY_BATCHES,
        TopicCatalogue.CLUSTER_CLOCK);
  }

  @Override
  public QuotaKernelState empty() {
    return host.kernel().initial();
  }

  @Override
  public Instant clock(QuotaKernelState state) {
    return state.lastTick();
  }

  @Override
  public HostResult<QuotaKernelState> offer(Instant now, QuotaKernelState state, String topic,
      SpecificRecord value, LedgerInput envelope) {
    QuotaHost.Decoded d = host.decode(topic, value);
    if (d instanceof QuotaHost.Decoded.Refused r) {
      return new HostResult<>(state, List.of(), List.of(), List.of(
          new HostResult.Refusal(r.reason(), -1)), List.of());
    }
    // one input, or a batch's usable GPUs stepped back to back as their samples would be
    QuotaKernelState next = state;
    List<HostRecord> records = new ArrayList<>();
    List<HostResult.Refusal> refused = new ArrayList<>();
    List<QuotaEffect> effects = new ArrayList<>();
    for (QuotaInput input : QuotaHost.inputs(d)) {
      Step<QuotaKernelState, QuotaEffect> step = host.kernel().step(now, next, input);
      next = step.state();
      effects.addAll(step.effects());
      for (QuotaHost.Out o : host.encode(step.effects())) {
        if (o instanceof QuotaHost.Out.Publish p) {
          records.add(new HostRecord(p.topic(), p.key(), p.value()));
        } else if (o instanceof QuotaHost.Out.DeadLetter l) {
          refused.add(new HostResult.Refusal(l.reason(), l.seq()));
        }
      }
    }
    return new HostResult<>(next, records, List.of(), refused, effects);
  }
}
