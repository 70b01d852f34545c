package io.tideline.platform.kernel.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.core.quota.kernel.QuotaEffect;
import io.tideline.core.quota.kernel.QuotaInput;
import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuAssignment;
import io.tideline.events.GpuSample;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LifecycleType;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.events.QuotaConfigFormat;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.ReclaimAction;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.events.SlotForecast;
import io.tideline.platform.kernel.StoreRecords;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.state.BillingDayRecord;
import io.tideline.state.JobSamplesRecord;
import io.tideline.state.PendingReclaimRecord;
import io.tideline.state.QueueHistoryRecord;
import io.tideline.state.QuotaClockRecord;
import io.tideline.state.QuotaDefinitionRecord;
import io.tideline.state.QuotaJobRecord;
import io.tideline.state.ServicePeakRecord;
import io.tideline.testkit.JobSubmissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * The host between the quota contracts and the kernel: records in, records out, and the kernel's
 * state through its Avro store records and back — a store written change by change, as the
 * service writes it, restores the running state exactly and decides the rest identically.
 */
class QuotaHostTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final String CLUSTER = "c1";
  static final String DEFINITION = """
      version: "host-1"
      fleetGpus: 16
      nodes:
        - {path: acme, kind: ORGANISATION, guaranteedGpus: 12}
        - {path: acme/search, kind: BUSINESS_LINE, guaranteedGpus: 8,
           preemptionGrants: [ONLINE_INFERENCE, CRITICAL_JOBS]}
        - {path: acme/search/ranking, kind: TEAM, guaranteedGpus: 8}
        - {path: acme/search/ranking/inference, kind: QUEUE, lane: INFERENCE, guaranteedGpus: 4,
           lendLimitGpus: 0, services: [search-api]}
        - {path: acme/search/ranking/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 4}
        - {path: acme/research, kind: BUSINESS_LINE, guaranteedGpus: 4, preemptionGrants: []}
        - {path: acme/research/llm, kind: TEAM, guaranteedGpus: 4}
        - {path: acme/research/llm/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 4}
      """;

  final QuotaHost host = new QuotaHost(io.tideline.core.quota.kernel.QuotaKernelConfig.defaults(
      CLUSTER, QuotaHost.bootstrap("file:test", DEFINITION)));

  /** A kernel behind its host, with a store written exactly as the adapter writes it. */
  final class Run {
    QuotaKernelState state = host.kernel().initial();
    final Map<String, Map<String, byte[]>> store = new TreeMap<>();
    final Map<Long, Map.Entry<String, SpecificRecord>> envelopes = new HashMap<>();
    final List<QuotaHost.Out> outs = new ArrayList<>();

    void offer(String topic, SpecificRecord record) {
      QuotaHost.Decoded d = host.decode(topic, record);
      if (!(d instanceof QuotaHost.Decoded.Input in)) {
        return;
      }
      long seq = state.inbox().nextSeq();
      Step<QuotaKernelState, QuotaEffect> s = host.kernel().step(T0, state, in.input());
      outs.addAll(host.encode(s.effects()));
      for (Journal.Changed c : s.changes()) {
        Map<String, byte[]> table = store.computeIfAbsent(c.table(), t -> new TreeMap<>());
        if (c.table().equals(QuotaKernelState.INBOX)) {
          if (!(in.input() instanceof QuotaInput.Clock)
              && c.id().equals(QuotaKernelState.inboxId(seq))) {
            envelopes.put(seq, Map.entry(topic, record));
            table.put(c.id(), new byte[0]);
          } else {
            table.remove(c.id());
          }
          continue;
        }
        SpecificRecord v = host.entity(s.state(), c.table(), c.id());
        if (v == null) {
          table.remove(c.id());
        } else {
          table.put(c.id(), StoreRecords.encode(v));
        }
      }
      state = s.state();
    }

    void tick(Instant at) {
      offer(TopicCatalogue.CLUSTER_CLOCK, ClockTick.newBuilder().setCluster(CLUSTER).setTime(at)
          .setSequence(at.getEpochSecond()).setIntervalMillis(1000)
          .setSource(ClockSource.SIMULATED).build());
    }

    <T extends SpecificRecord> Map<String, T> table(String name, Class<T> type) {
      Map<String, T> out = new TreeMap<>();
      store.getOrDefault(name, Map.of()).forEach((k, v) -> out.put(k, StoreRecords.decode(type,
          v)));
      return out;
    }

    /** The state read back from the store, as the service does after a crash. */
    QuotaKernelState restored() {
      Map<String, byte[]> meta = store.getOrDefault(QuotaKernelState.META, Map.of());
      Map<Long, QuotaInput.Buffered> inbox = new TreeMap<>();
      store.getOrDefault(QuotaKernelState.INBOX, Map.of()).keySet().forEach(id -> {
        long seq = QuotaKernelState.inboxSeq(id);
        var e = envelopes.get(seq);
        inbox.put(seq, (QuotaInput.Buffered) ((QuotaHost.Decoded.Input) host.decode(e.getKey(),
            e.getValue())).input());
      });
      return host.restore(new QuotaStore.Stored(
          meta.containsKey("definition") ? StoreRecords.decode(QuotaDefinitionRecord.class,
              meta.get("definition")) : null,
          StoreRecords.decode(QuotaClockRecord.class, meta.get("clock")),
          table(QuotaKernelState.JOBS, QuotaJobRecord.class),
          table(QuotaKernelState.SAMPLES, JobSamplesRecord.class),
          table(QuotaKernelState.BILLING, BillingDayRecord.class),
          table(QuotaKernelState.HISTORY, QueueHistoryRecord.class),
          table(QuotaKernelState.PEAKS, ServicePeakRecord.class),
          table(QuotaKernelState.RECLAIMS, PendingReclaimRecord.class), inbox));
    }
  }

  static JobLifecycle lifecycle(String job, LifecycleType type, Instant at, int gpus) {
    List<GpuAssignment> a = new ArrayList<>();
    for (int i = 0; i < gpus; i++) {
      a.add(GpuAssignment.newBuilder().setNodeId("n1").setGpuIndex(i).setShare(1.0).build());
    }
    return JobLifecycle.newBuilder().setJobId(job).setCluster(CLUSTER).setType(type)
        .setOccurredAt(at).setAssignments(a).build();
  }

  static GpuSample sample(String job, int gpu, double pct, Instant at) {
    return GpuSample.newBuilder().setGpuId("n1/" + gpu).setCluster(CLUSTER).setNodeId("n1")
        .setGpuIndex(gpu).setSampledAt(at).setState(SampleState.OK).setUtilizationPct(pct)
        .setJobId(job).setSource(SampleSource.SIMULATOR).build();
  }

  static SlotForecast peak(String service, double gpus, Instant at) {
    return SlotForecast.newBuilder().setServiceId(service).setSlotStart(at)
        .setSlotEnd(at.plusSeconds(900)).setHoliday(false).setP50(gpus / 2).setP90(gpus)
        .setP95(gpus).setP99(gpus).setHistoricalPeak(gpus).setSampleDays(14).setComputedAt(at)
        .build();
  }

  /** Borrowers, a guarantee reclaim in flight, a Q5 peak, samples and bills. */
  static void firstPart(Run r) {
    r.offer(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("r1").tenant("research", "llm")
        .gpus(8).at(T0).build());
    r.tick(T0.plusSeconds(1));
    r.offer(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("r2").tenant("research", "llm")
        .gpus(4).at(T0.plusSeconds(2)).build());
    r.tick(T0.plusSeconds(3));
    r.offer(TopicCatalogue.JOBS_LIFECYCLE, lifecycle("r1", LifecycleType.STARTED,
        T0.plusSeconds(4), 8));
    r.offer(TopicCatalogue.JOBS_LIFECYCLE, lifecycle("r2", LifecycleType.STARTED,
        T0.plusSeconds(4), 4));
    r.offer(TopicCatalogue.FORECAST_SLOTS, peak("search-api", 3, T0.plusSeconds(4)));
    for (int m = 0; m < 20; m++) {
      r.offer(TopicCatalogue.GPU_TELEMETRY, sample("r1", m % 8, 40 + m, T0.plusSeconds(5)
          .plus(Duration.ofMinutes(m))));
      r.tick(T0.plusSeconds(6).plus(Duration.ofMinutes(m)));
    }
    r.offer(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("g1").gpus(4)
        .at(T0.plus(Duration.ofMinutes(30))).build());
    r.tick(T0.plus(Duration.ofMinutes(30)).plusSeconds(1));
    r.offer(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("w1").gpus(1)
        .at(T0.plus(Duration.ofMinutes(31))).build());
  }

  static void secondPart(Run r) {
    Instant t = T0.plus(Duration.ofMinutes(32));
    r.offer(TopicCatalogue.JOBS_LIFECYCLE, lifecycle("r2", LifecycleType.PREEMPTED, t, 0));
    for (int i = 1; i <= 30; i++) {
      r.tick(t.plus(Duration.ofMinutes(7L * i)));
    }
  }

  @Test
  void shouldRestoreTheRunningStateExactlyFromItsStoreRecordsAndDecideTheSameAfterwards() {
    Run running = new Run();
    firstPart(running);
    assertThat(running.state.reclaims().has("g1")).isTrue();
    assertThat(running.state.inbox().size()).isEqualTo(1);

    Run resumed = new Run();
    resumed.state = running.restored();
    resumed.store.putAll(running.store);
    resumed.envelopes.putAll(running.envelopes);

    assertThat(resumed.state).isEqualTo(running.state);
    int before = running.outs.size();
    secondPart(running);
    secondPart(resumed);
    assertThat(resumed.outs).isNotEmpty()
        .isEqualTo(running.outs.subList(before, running.outs.size()));
    assertThat(running.restored()).isEqualTo(running.state);
  }

  @Test
  void shouldPublishAGuaranteeReclaimAsOneQuotaReclaimNamingEveryBorrower() {
    Run r = new Run();
    firstPart(r);

    List<QuotaReclaim> reclaims = r.outs.stream().filter(o -> o instanceof QuotaHost.Out.Publish p
        && p.value() instanceof QuotaReclaim).map(o -> (QuotaReclaim) ((QuotaHost.Out.Publish) o)
        .value()).filter(q -> q.getAction() == ReclaimAction.GUARANTEE).toList();

    assertThat(reclaims).singleElement().satisfies(q -> {
      assertThat(q.getJobId()).isEqualTo("g1");
      assertThat(q.getBeneficiaryJobId()).isEqualTo("g1");
      assertThat(q.getQueue()).isEqualTo("acme/search/ranking/training");
      assertThat(q.getReclaimId()).startsWith("c1/guarantee/g1/");
      assertThat(q.getAttempt()).isEqualTo(1);
      assertThat(q.getBorrowers()).singleElement().satisfies(b -> {
        assertThat(b.getJobId()).isEqualTo("r2");
        assertThat(b.getQueue()).isEqualTo("acme/research/llm/training");
        assertThat(b.getGpus()).isEqualTo(4.0);
        assertThat(b.getBorrowedGpus()).isEqualTo(4.0);
      });
      assertThat(q.getCurrentGpus()).isEqualTo(4);
      assertThat(q.getRecommendedGpus()).isZero();
    });
  }

  @Test
  void shouldSayWhyARecordCannotBeUsedAndIgnoreWhatIsNotQuotas() {
    QuotaHost.Decoded invalid = host.decode(QuotaHost.CONFIG, QuotaConfigDocument.newBuilder()
        .setCluster(CLUSTER).setVersion("v9").setFormat(QuotaConfigFormat.YAML)
        .setDocument("version: v8\nfleetGpus: 0\nnodes: []").setPublishedAt(T0).build());
    QuotaHost.Decoded elsewhere = host.decode(TopicCatalogue.JOBS_LIFECYCLE,
        JobLifecycle.newBuilder(lifecycle("x", LifecycleType.STARTED, T0, 1)).setCluster("other")
            .build());
    QuotaHost.Decoded hot = host.decode(TopicCatalogue.GPU_TELEMETRY, sample("x", 0, 150, T0));
    QuotaHost.Decoded wrong = host.decode(TopicCatalogue.CLUSTER_CLOCK, peak("s", 1, T0));

    assertThat(invalid).isInstanceOfSatisfying(QuotaHost.Decoded.Refused.class, r ->
        assertThat(r.reason()).contains("quota definition v9 refused")
            .contains("envelope version 'v9' differs from the document's 'v8'")
            .contains("fleetGpus must be a positive number"));
    assertThat(elsewhere).isInstanceOf(QuotaHost.Decoded.Ignored.class);
    assertThat(hot).isInstanceOfSatisfying(QuotaHost.Decoded.Refused.class, r ->
        assertThat(r.reason()).contains("utilizationPct of n1/0 must be in [0, 100], got 150"));
    assertThat(wrong).isInstanceOfSatisfying(QuotaHost.Decoded.Refused.class, r ->
        assertThat(r.reason()).isEqualTo("expected a ClockTick, got SlotForecast"));
  }

  @Test
  void shouldNameTheRefusedInputsTopicAndInboxSequenceForItsDeadLetter() {
    Run r = new Run();
    r.offer(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("x").gpus(1).at(T0).build());
    r.tick(T0.plusSeconds(1));
    r.offer(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("x").gpus(64).gang(64, 8)
        .at(T0).build());
    r.tick(T0.plusSeconds(2));

    assertThat(r.outs).filteredOn(QuotaHost.Out.DeadLetter.class::isInstance).singleElement()
        .isInstanceOfSatisfying(QuotaHost.Out.DeadLetter.class, d -> {
          assertThat(d.seq()).isEqualTo(1);
          assertThat(d.topic()).isEqualTo(TopicCatalogue.JOBS_SUBMITTED);
          assertThat(d.key()).isEqualTo("x");
          assertThat(d.reason()).contains("gpuCount: known 1, resubmitted 64");
        });
  }
}
