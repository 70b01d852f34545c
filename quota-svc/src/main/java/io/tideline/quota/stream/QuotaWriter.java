package io.tideline.quota.stream;

import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.core.quota.kernel.QuotaEffect;
import io.tideline.core.quota.kernel.QuotaInput;
import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.events.LedgerInput;
import io.tideline.events.QuotaVerdict;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.kernel.StoreRecords;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.quota.config.QuotaPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Stage 2, the single writer of a cluster's quota: an adapter around the core's
 * {@code QuotaKernel}, which holds every rule (see its documentation for the cycle). For each
 * record of {@code quota.inputs}: decode it through the platform's {@link QuotaHost}, {@code step}
 * the kernel, publish the effects' records (dead letters built from the refused input's stored
 * envelope) and write the entities the step changed to their stores — nothing else. The state is
 * read back from the stores in {@link #init}, so a restart or a rebuild from the changelogs
 * resumes exactly where it stopped, inputs waiting for a tick included.
 */
final class QuotaWriter implements Processor<String, byte[], String, SpecificRecord> {

  private static final Logger LOG = Logger.getLogger(QuotaWriter.class);

  private final QuotaPolicy policy;
  private final QuotaHost host;
  private final Deserializer<Object> avro;
  private final QuotaListener listener;
  private final Map<String, KeyValueStore<String, byte[]>> stores = new HashMap<>();
  private ProcessorContext<String, SpecificRecord> context;
  private QuotaKernelState state;

  QuotaWriter(QuotaPolicy policy, QuotaHost host, Deserializer<Object> avro,
      QuotaListener listener) {
    this.policy = policy;
    this.host = host;
    this.avro = avro;
    this.listener = listener;
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    QuotaTopology.ALL_STORES.forEach(s -> stores.put(s, context.getStateStore(s)));
    state = QuotaStores.read(host, stores::get, avro, true);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    // 1. The input: the log's envelope, its original record, the kernel input it is.
    LedgerInput in = (LedgerInput) avro.deserialize(TopicCatalogue.QUOTA_INPUTS, record.value());
    Object event;
    try {
      event = avro.deserialize(in.getSourceTopic(), QuotaStores.payload(in));
    } catch (RuntimeException e) {
      LOG.errorf("skipping an input of %s that passed the gate but does not decode: %s",
          in.getSourceTopic(), e.getMessage());
      return;
    }
    QuotaHost.Decoded decoded = host.decode(in.getSourceTopic(), event);
    if (decoded instanceof QuotaHost.Decoded.Refused r) {
      deadLetter(in, keyOf(event), r.errorClass(), r.reason(), record.timestamp());
      return;
    }
    // one input, or a batch's usable GPUs stepped back to back as their samples would be
    // (ADR 0040); nothing for quota (another cluster, a stale sample…) steps nothing
    boolean stored = false;
    for (QuotaInput input : QuotaHost.inputs(decoded)) {
      stored |= step(record, in, input, stored);
    }
  }

  /**
   * One kernel input of the record: decide, publish, persist.
   *
   * @param referenced whether an earlier GPU of the same batch stored the envelope already: the
   *     inbox keeps a batch once, under its first GPU's sequence, and a reference (the same
   *     source, no payload) under the following ones ({@link QuotaStores#read})
   * @return whether the input waits in the inbox (its envelope, or a reference, was stored)
   */
  private boolean step(Record<String, byte[]> record, LedgerInput in, QuotaInput input,
      boolean referenced) {
    // 2. The kernel decides.
    long seq = state.inbox().nextSeq();
    Step<QuotaKernelState, QuotaEffect> step = host.kernel().step(
        Instant.ofEpochMilli(record.timestamp()), state, input);
    // 3. Publish (before the inbox entries a tick drained are deleted: dead letters need them).
    for (QuotaHost.Out out : host.encode(step.effects())) {
      if (out instanceof QuotaHost.Out.Publish p) {
        context.forward(new Record<>(p.key(), p.value(), record.timestamp()));
        if (p.value() instanceof QuotaVerdict v) {
          listener.verdict(v.getVerdict().name());
        }
      } else if (out instanceof QuotaHost.Out.DeadLetter d) {
        LedgerInput original = d.seq() < 0 ? in : QuotaStores.stored(
            stores.get(QuotaTopology.INBOX_STORE), d.seq());
        deadLetter(original, d.key(), d.errorClass(), d.reason(), record.timestamp());
      }
    }
    // 4. Persist exactly what changed.
    boolean buffered = !(input instanceof QuotaInput.Clock);
    boolean waits = false;
    for (Journal.Changed c : step.changes()) {
      KeyValueStore<String, byte[]> store = stores.get(QuotaTopology.STORES.get(c.table()));
      if (QuotaKernelState.INBOX.equals(c.table())) {
        if (buffered && c.id().equals(QuotaKernelState.inboxId(seq))) {
          store.put(c.id(), StoreRecords.encode(referenced ? QuotaStores.reference(in) : in));
          waits = true;
        } else {
          store.delete(c.id());
        }
        continue;
      }
      SpecificRecord value = host.entity(step.state(), c.table(), c.id());
      if (value == null) {
        store.delete(c.id());
      } else {
        store.put(c.id(), StoreRecords.encode(value));
      }
    }
    state = step.state();
    return waits;
  }

  private void deadLetter(LedgerInput original, String key, String errorClass, String reason,
      long timestamp) {
    LOG.infof("dead-lettering %s@%d/%d: %s", original.getSourceTopic(),
        original.getSourcePartition(), original.getSourceOffset(), reason);
    context.forward(new Record<>(key, DeadLetters.envelope(original.getSourceTopic(),
        original.getSourcePartition(), original.getSourceOffset(),
        key == null ? null : key.getBytes(StandardCharsets.UTF_8), QuotaStores.payload(original),
        errorClass, reason, policy.service(), timestamp), timestamp));
    listener.deadLettered(original.getSourceTopic(), errorClass);
  }

  private static String keyOf(Object event) {
    return event instanceof io.tideline.events.JobSubmitted s ? s.getJobId() : null;
  }
}
