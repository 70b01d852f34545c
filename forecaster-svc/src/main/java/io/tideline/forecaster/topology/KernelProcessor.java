package io.tideline.forecaster.topology;

import io.tideline.core.forecast.kernel.ForecastEffect;
import io.tideline.core.forecast.kernel.ForecastInput;
import io.tideline.core.forecast.kernel.ForecastKernel;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.events.LedgerInput;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.kernel.forecast.ForecastHost;
import io.tideline.platform.kernel.forecast.ForecastHost.Decoded;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.ledger.TopologyDeadLetters;
import io.tideline.platform.topics.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The forecaster's single writer: one task reads every accepted input's envelope, in the order
 * they arrive, and runs the core {@link ForecastKernel} through the platform's
 * {@link ForecastHost} — nothing here decides. Per input: (1) the envelope is decoded back into
 * the kernel input it is; (2) the kernel steps; (3) each effect becomes its record (reservations,
 * forecasts, the slot map), a refusal a dead letter of the original record, a tally meters;
 * (4) what the step changed is written to the stores: a waiting input's envelope under its
 * arrival sequence, deleted once a tick drained it, and every changed entity as its store record.
 *
 * <p>The state lives in memory between records and is rebuilt from the stores whenever the task
 * is (re-)initialised, so after a restart, a rebalance or an aborted transaction it is exactly
 * what the stores (and their changelogs) hold.
 */
final class KernelProcessor implements Processor<byte[], byte[], byte[], Out> {

  private final ForecastKernel kernel;
  private final ForecastHost host;
  private final ForecastSerdes serdes;
  private final ForecastMeters meters;
  private final TopologyDeadLetters letters;
  private final Decoder<SampleFacts> telemetry;
  private final Decoder<BatchFacts> batches;
  private ProcessorContext<byte[], Out> context;
  private final Map<String, KeyValueStore<String, SpecificRecord>> stores = new HashMap<>();
  /** Arrival sequence -> the envelope's bytes as they arrived (a registry-encoded LedgerInput). */
  private KeyValueStore<String, byte[]> inbox;
  private ForecastState state;

  KernelProcessor(ForecastKernel kernel, ForecastHost host, ForecastSerdes serdes,
      String service, ForecastMeters meters) {
    this.kernel = kernel;
    this.host = host;
    this.serdes = serdes;
    this.meters = meters;
    this.letters = new TopologyDeadLetters(serdes.writer(), service);
    this.telemetry = new Decoder<>(SampleFacts.class, "GpuSample", serdes.telemetry());
    this.batches = new Decoder<>(BatchFacts.class, "GpuSampleBatch", serdes.telemetry());
  }

  @Override
  public void init(ProcessorContext<byte[], Out> context) {
    this.context = context;
    Map<String, Map<String, SpecificRecord>> tables = new LinkedHashMap<>();
    for (String table : ForecastState.TABLES) {
      KeyValueStore<String, SpecificRecord> store =
          context.getStateStore(ForecastStores.of(table));
      stores.put(table, store);
      Map<String, SpecificRecord> rows = new TreeMap<>();
      try (KeyValueIterator<String, SpecificRecord> it = store.all()) {
        it.forEachRemaining(kv -> rows.put(kv.key, kv.value));
      }
      tables.put(table, rows);
    }
    inbox = context.getStateStore(ForecastStores.INBOX);
    TreeMap<Long, ForecastInput> waiting = new TreeMap<>();
    try (KeyValueIterator<String, byte[]> it = inbox.all()) {
      while (it.hasNext()) {
        var kv = it.next();
        Decoded d = decode((LedgerInput) serdes.records().deserialize(Envelopes.INPUTS, kv.value));
        List<ForecastInput> inputs = ForecastHost.inputs(d);
        if (inputs.isEmpty()) {
          throw new IllegalStateException("the inbox holds an input the forecaster no longer "
              + "accepts (seq " + kv.key + "): " + d);
        }
        // a batch is kept once, under the sequence of its first GPU; its GPUs waited at the
        // sequences that follow (they share one event time: they wait and drain together)
        long seq = Long.parseLong(kv.key);
        for (ForecastInput input : inputs) {
          waiting.put(seq++, input);
        }
      }
    }
    state = host.restore(tables, waiting);
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    LedgerInput envelope = (LedgerInput) serdes.records().deserialize(Envelopes.INPUTS,
        record.value());
    Decoded decoded = decode(envelope);
    List<ForecastInput> inputs = ForecastHost.inputs(decoded);
    if (inputs.isEmpty()) {
      // accepted by the intake, so only a change of config between the two could do this
      deadLetter(envelope, record.timestamp(), decoded instanceof Decoded.Refused r
          ? r.errorClass() : DeadLetters.VALIDATION, String.valueOf(decoded));
      return;
    }
    // one input, or a batch's GPUs stepped back to back as their samples would be (ADR 0040)
    boolean stored = false;
    boolean lettered = false;
    for (ForecastInput input : inputs) {
      Step<ForecastState, ForecastEffect> step =
          kernel.step(Instant.ofEpochMilli(record.timestamp()), state, input);
      state = step.state();
      for (ForecastEffect effect : step.effects()) {
        if (effect instanceof ForecastEffect.Refused refused) {
          if (!lettered) { // a batch's GPUs share its time: refused together, one letter
            deadLetter(envelope, record.timestamp(), DeadLetters.VALIDATION, refused.reason());
            lettered = true;
          }
        } else if (effect instanceof ForecastEffect.Tally tally) {
          meters.tally(tally.counts());
        } else {
          for (ForecastHost.Emit emit : host.encode(effect)) {
            if (effect instanceof ForecastEffect.Reservation r) {
              meters.reservation(r.event().type().name());
            }
            context.forward(new Record<>(emit.key().getBytes(StandardCharsets.UTF_8),
                new Out(emit.topic(), serdes.writer().serialize(emit.topic(), emit.value())),
                effect.at().toEpochMilli()));
          }
        }
      }
      for (Journal.Changed c : step.changes()) {
        if (ForecastState.INBOX.equals(c.table())) {
          if (input instanceof ForecastInput.Ticked) {
            inbox.delete(c.id()); // drained by the tick
          } else if (!stored) {
            // waits under its arrival sequence, bytes as received; a batch once, under its
            // first GPU's sequence (init() gives the GPUs after it the sequences that follow)
            inbox.put(c.id(), record.value());
            stored = true;
          }
          continue;
        }
        Object entity = state.table(c.table()).get(c.id());
        KeyValueStore<String, SpecificRecord> store = stores.get(c.table());
        if (entity == null) {
          store.delete(c.id());
        } else {
          store.put(c.id(), host.toStore(c.table(), entity));
        }
      }
    }
  }

  /**
   * The kernel input an envelope carries (mapped as the intake mapped it; the intake checked it
   * already, so it is not checked again: a change of {@code tideline.intake.*} bounds cannot make
   * a waiting input unreadable).
   */
  private Decoded decode(LedgerInput envelope) {
    String topic = envelope.getSourceTopic();
    byte[] value = Envelopes.value(envelope);
    if (TopicCatalogue.GPU_TELEMETRY_BATCHES.equals(topic)) {
      Decoder.Result<BatchFacts> r = batches.decode(topic, value, null);
      if (r.value() == null) {
        return new Decoded.Refused(r.errorClass(), r.error());
      }
      List<ForecastInput> inputs = new ArrayList<>(r.value().gpus().size());
      for (SampleFacts s : r.value().gpus()) {
        if (ForecastHost.observation(s.gpuId(), s.nodeId(), s.sampledAt(), s.stale(),
            s.serviceId(), s.jobId()) instanceof Decoded.Accepted a) {
          inputs.add(a.input());
        }
      }
      return new Decoded.AcceptedAll(inputs);
    }
    if (TopicCatalogue.GPU_TELEMETRY.equals(topic)) {
      Decoder.Result<SampleFacts> r = telemetry.decode(topic, value, null);
      return r.value() == null ? new Decoded.Refused(r.errorClass(), r.error())
          : ForecastHost.observation(r.value().gpuId(), r.value().nodeId(), r.value().sampledAt(),
              r.value().stale(), r.value().serviceId(), r.value().jobId());
    }
    byte[] key = Envelopes.key(envelope);
    Object decoded = value == null ? null : serdes.records().deserialize(topic, value);
    return host.decodeAccepted(topic,
        key == null ? null : new String(key, StandardCharsets.UTF_8), decoded);
  }

  private void deadLetter(LedgerInput envelope, long timestamp, String errorClass,
      String reason) {
    meters.deadLettered(envelope.getSourceTopic(), errorClass);
    byte[] key = Envelopes.key(envelope);
    context.forward(new Record<>(key, letters.letter(envelope.getSourceTopic(),
        envelope.getSourcePartition(), envelope.getSourceOffset(), key, Envelopes.value(envelope),
        errorClass, reason, timestamp), timestamp));
  }
}
