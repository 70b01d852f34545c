package io.tideline.platform.kernel.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.forecast.kernel.ForecastEffect;
import io.tideline.core.forecast.kernel.ForecastInput;
import io.tideline.core.forecast.kernel.ForecastKernel;
import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Step;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.Holiday;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.events.SlotForecast;
import io.tideline.events.SwitchPath;
import io.tideline.platform.kernel.forecast.ForecastHost.Decoded;
import io.tideline.platform.topics.TopicCatalogue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * The forecast host: every input record maps to the kernel input it is, every effect to the
 * record it publishes, and every state table survives the trip through its Avro store record
 * exactly — a state restored from store records decides the same as the running one.
 */
class ForecastHostTest {

  static final String CLUSTER = "default";
  static final Instant T0 = Instant.parse("2026-11-09T08:00:00Z");

  final ForecastKernelConfig config = ForecastKernelConfig.defaults(CLUSTER, ZoneOffset.UTC);
  final ForecastHost host = new ForecastHost(config);
  final ForecastKernel kernel = new ForecastKernel(config);

  static GpuSample sample(String gpu, String service, Instant at, SampleState state) {
    return GpuSample.newBuilder().setGpuId(gpu).setCluster(CLUSTER).setNodeId("n1")
        .setGpuIndex(0).setSampledAt(at).setState(state).setServiceId(service)
        .setJobId(service == null ? null : service + "-job").setSource(SampleSource.SIMULATOR)
        .build();
  }

  static ClockTick tick(Instant at) {
    return ClockTick.newBuilder().setCluster(CLUSTER).setTime(at).setSequence(1)
        .setIntervalMillis(60_000).setSource(ClockSource.SIMULATED).build();
  }

  static NodeInventory node(String id, NodeChange change, int gpus) {
    return NodeInventory.newBuilder().setCluster(CLUSTER).setNodeId(id).setChange(change)
        .setObservedAt(T0).setGpuModel("H100").setGpuMemoryMiB(81920).setGpuCount(gpus)
        .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch("a").setAggregationSwitch("b")
            .setCoreSwitch("c").build()).build();
  }

  ForecastInput accepted(String topic, String key, Object value) {
    Decoded d = host.decode(topic, key, value, -1);
    assertThat(d).isInstanceOf(Decoded.Accepted.class);
    return ((Decoded.Accepted) d).input();
  }

  @Test
  void shouldMapEachInputRecordToItsKernelInput() {
    assertThat(accepted(TopicCatalogue.GPU_TELEMETRY, "g1",
        sample("g1", "chat", T0, SampleState.STALE)))
        .isEqualTo(new ForecastInput.GpuObserved("g1", "n1", T0, true, "chat", "chat-job"));
    assertThat(accepted(TopicCatalogue.CLUSTER_INVENTORY, "n1", node("n1", NodeChange.DRAINED, 8)))
        .isEqualTo(new ForecastInput.NodeChanged("n1", 0, false, T0));
    assertThat(accepted(TopicCatalogue.CLUSTER_INVENTORY, "n1", node("n1", NodeChange.LEFT, 8)))
        .isEqualTo(new ForecastInput.NodeChanged("n1", 0, true, T0));
    assertThat(accepted(ForecastHost.FORECAST_HOLIDAYS, "2026-12-25", null))
        .isEqualTo(new ForecastInput.HolidayChanged(java.time.LocalDate.parse("2026-12-25"), "",
            false, ForecastInput.TIMELESS));
    assertThat(accepted(TopicCatalogue.JOBS_LIFECYCLE, "j1", JobLifecycle.newBuilder()
        .setJobId("j1").setCluster(CLUSTER).setType(LifecycleType.PREEMPTED).setOccurredAt(T0)
        .build())).isEqualTo(new ForecastInput.JobRan("j1", T0, true));
    assertThat(accepted(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, tick(T0)))
        .isInstanceOf(ForecastInput.Ticked.class);
  }

  @Test
  void shouldRefuseOrIgnoreWhatTheForecasterCannotUse() {
    assertThat(host.decode(TopicCatalogue.GPU_TELEMETRY, " ", sample(" ", null, T0,
        SampleState.OK), -1)).isInstanceOfSatisfying(Decoded.Refused.class, r -> {
          assertThat(r.errorClass()).isEqualTo("VALIDATION");
          assertThat(r.reason()).contains("gpuId is required");
        });
    assertThat(host.decode(ForecastHost.FORECAST_HOLIDAYS, "2026-12-25", Holiday.newBuilder()
        .setDate("2026-12-24").setName("Eve").setDeclaredAt(T0).build(), -1))
        .isInstanceOfSatisfying(Decoded.Refused.class,
            r -> assertThat(r.reason()).contains("differs from its key '2026-12-25'"));
    assertThat(host.decode(TopicCatalogue.JOBS_LIFECYCLE, "j1", JobLifecycle.newBuilder()
        .setJobId("j1").setCluster(CLUSTER).setType(LifecycleType.PROGRESS).setOccurredAt(T0)
        .build(), -1)).isInstanceOf(Decoded.Ignored.class);
    assertThat(host.decode(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, "not a tick", -1))
        .isInstanceOfSatisfying(Decoded.Refused.class,
            r -> assertThat(r.errorClass()).isEqualTo("DESERIALIZATION"));
  }

  @Test
  void shouldHoldEveryInputToTheSharedValidatorsBounds() {
    // a node with more GPUs than a node can hold: the platform's field bound, not a rule of ours
    assertThat(host.decode(TopicCatalogue.CLUSTER_INVENTORY, "n1",
        node("n1", NodeChange.JOINED, 65), -1))
        .isInstanceOfSatisfying(Decoded.Refused.class, r -> {
          assertThat(r.errorClass()).isEqualTo("VALIDATION");
          assertThat(r.reason()).contains("gpuCount must be in [1, 64]");
        });
    // a tick stamped 11 minutes after its record's timestamp: refused, so it moves no clock
    long recordTime = T0.toEpochMilli();
    assertThat(host.decode(TopicCatalogue.CLUSTER_CLOCK, CLUSTER,
        tick(T0.plus(Duration.ofMinutes(11))), recordTime))
        .isInstanceOfSatisfying(Decoded.Refused.class, r -> {
          assertThat(r.errorClass()).isEqualTo("VALIDATION");
          assertThat(r.reason()).contains("tideline.intake.max-lead");
        });
    assertThat(host.decode(TopicCatalogue.CLUSTER_CLOCK, CLUSTER,
        tick(T0.plus(Duration.ofMinutes(9))), recordTime))
        .isInstanceOf(Decoded.Accepted.class);
    // the bounds are the configured ones (tideline.intake.max-gpus-per-node 8 here)
    ForecastHost eight = new ForecastHost(config, new io.tideline.platform.validation
        .EventValidator(io.tideline.platform.validation.InputBounds.DEFAULTS
            .withMaxGpusPerNode(8)));
    assertThat(host.decode(TopicCatalogue.CLUSTER_INVENTORY, "n1",
        node("n1", NodeChange.JOINED, 16), -1)).isInstanceOf(Decoded.Accepted.class);
    assertThat(eight.decode(TopicCatalogue.CLUSTER_INVENTORY, "n1",
        node("n1", NodeChange.JOINED, 16), -1))
        .isInstanceOfSatisfying(Decoded.Refused.class,
            r -> assertThat(r.reason()).contains("gpuCount must be in [1, 8]"));
  }

  @Test
  void shouldApplyTheOneTombstoneRule() {
    // a holiday is withdrawn by its tombstone ...
    assertThat(accepted(ForecastHost.FORECAST_HOLIDAYS, "2026-12-25", null))
        .isEqualTo(new ForecastInput.HolidayChanged(java.time.LocalDate.parse("2026-12-25"), "",
            false, ForecastInput.TIMELESS));
    assertThat(host.decode(ForecastHost.FORECAST_HOLIDAYS, "Christmas", null, -1))
        .isInstanceOfSatisfying(Decoded.Refused.class,
            r -> assertThat(r.reason()).contains("not an ISO date"));
    // ... a node is not: it leaves with LEFT, and an inventory tombstone is refused
    assertThat(host.decode(TopicCatalogue.CLUSTER_INVENTORY, "n1", null, -1))
        .isInstanceOfSatisfying(Decoded.Refused.class,
            r -> assertThat(r.reason()).contains("a node leaves with change LEFT"));
    assertThat(host.decode(TopicCatalogue.JOBS_SUBMITTED, "j1", null, -1))
        .isInstanceOf(Decoded.Refused.class);
  }

  @Test
  void shouldRestoreEveryTableFromItsStoreRecordsExactlyAndDecideTheSame() throws IOException {
    // a service with a reservation, a holiday, nodes, a job, stale GPUs, a waiting input
    List<Object[]> records = new ArrayList<>(); // {topic, key, value}
    records.add(new Object[] {TopicCatalogue.CLUSTER_INVENTORY, "n1", node("n1", NodeChange.JOINED, 8)});
    records.add(new Object[] {TopicCatalogue.CLUSTER_INVENTORY, "n2", node("n2", NodeChange.JOINED, 8)});
    records.add(new Object[] {ForecastHost.FORECAST_HOLIDAYS, "2026-11-11", Holiday.newBuilder()
        .setDate("2026-11-11").setName("Singles").setDeclaredAt(T0.minusSeconds(600)).build()});
    for (int m = 0; m < 80; m++) {
      Instant t = T0.plus(Duration.ofMinutes(m));
      for (int g = 0; g < 6; g++) {
        records.add(new Object[] {TopicCatalogue.GPU_TELEMETRY, "g" + g, sample("g" + g,
            g < 3 + (m / 30) ? "chat" : null, t.plusSeconds(20),
            g == 1 && m % 9 == 4 ? SampleState.STALE : SampleState.OK)});
      }
      records.add(new Object[] {TopicCatalogue.CLUSTER_CLOCK, CLUSTER, tick(t.plusSeconds(60))});
    }
    ForecastState state = ForecastState.empty();
    List<ForecastEffect> effects = new ArrayList<>();
    int cut = records.size() - 120; // the last 17 minutes: a reserve instant and a release
    for (int i = 0; i < records.size(); i++) {
      Object[] r = records.get(i);
      Step<ForecastState, ForecastEffect> s = kernel.step(Instant.EPOCH, state,
          accepted((String) r[0], (String) r[1], r[2]));
      state = s.state();
      if (i >= cut) {
        effects.addAll(s.effects());
      }
      if (i == cut - 1) {
        ForecastState restored = throughStores(state);
        assertThat(restored.snapshot()).isEqualTo(state.snapshot());
        // the rest decided from the restored state
        List<ForecastEffect> after = new ArrayList<>();
        ForecastState r2 = restored;
        for (int j = cut; j < records.size(); j++) {
          Object[] rr = records.get(j);
          Step<ForecastState, ForecastEffect> s2 = kernel.step(Instant.EPOCH, r2,
              accepted((String) rr[0], (String) rr[1], rr[2]));
          r2 = s2.state();
          after.addAll(s2.effects());
        }
        restoredEffects = after;
        restoredEnd = r2;
      }
    }
    assertThat(state.histories().isEmpty()).isFalse();
    assertThat(state.holdings().get("chat").plans()).isNotEmpty();
    assertThat(restoredEffects).isEqualTo(effects);
    assertThat(restoredEnd.snapshot()).isEqualTo(state.snapshot());
    List<ForecastHost.Emit> emitted = new ArrayList<>();
    effects.forEach(e -> emitted.addAll(host.encode(e)));
    assertThat(emitted).anySatisfy(e -> assertThat(e.value()).isInstanceOf(SlotForecast.class));
  }

  private List<ForecastEffect> restoredEffects;
  private ForecastState restoredEnd;

  @Test
  void shouldPublishAColdStartReservationWithItsBasis() {
    ForecastState state = ForecastState.empty();
    List<ForecastEffect> effects = new ArrayList<>();
    for (int m = 0; m < 31; m++) {
      Instant t = T0.plus(Duration.ofMinutes(m));
      for (int g = 0; g < 4; g++) {
        state = kernel.step(Instant.EPOCH, state, accepted(TopicCatalogue.GPU_TELEMETRY, "g" + g,
            sample("g" + g, "fresh", t.plusSeconds(20), SampleState.OK))).state();
      }
      Step<ForecastState, ForecastEffect> s = kernel.step(Instant.EPOCH, state,
          accepted(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, tick(t.plusSeconds(60))));
      state = s.state();
      effects.addAll(s.effects());
    }
    List<CapacityReservation> reservations = new ArrayList<>();
    for (ForecastEffect e : effects) {
      host.encode(e).forEach(x -> {
        if (x.value() instanceof CapacityReservation r) {
          reservations.add(r);
        }
      });
    }
    assertThat(reservations).isNotEmpty();
    assertThat(reservations.get(0).getBasis()).isEqualTo(io.tideline.events.ForecastBasis.COLD_START);
    assertThat(reservations.get(0).getReservationId()).startsWith("fresh@");
  }

  /** Every table through real Avro binary of its store record, and the inbox as its inputs. */
  private ForecastState throughStores(ForecastState state) throws IOException {
    Map<String, Map<String, SpecificRecord>> tables = new LinkedHashMap<>();
    for (String t : ForecastState.TABLES) {
      Map<String, SpecificRecord> rows = new TreeMap<>();
      for (Map.Entry<String, ?> e : state.table(t).asMap().entrySet()) {
        rows.put(e.getKey(), avroRoundTrip(host.toStore(t, e.getValue())));
      }
      tables.put(t, rows);
    }
    TreeMap<Long, ForecastInput> waiting = new TreeMap<>();
    for (Inbox.Entry<ForecastInput> e : state.inbox().entries()) {
      waiting.put(e.position().seq(), e.input());
    }
    return host.restore(tables, waiting);
  }

  @SuppressWarnings("unchecked")
  private static <T extends SpecificRecord> T avroRoundTrip(T record) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new SpecificDatumWriter<T>(record.getSchema()).write(record, encoder);
    encoder.flush();
    return new SpecificDatumReader<T>(record.getSchema())
        .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
  }
}
