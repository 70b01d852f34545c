package io.tideline.placement.ledger;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.events.CapacityReservation;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.Eviction;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeInventory;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QueuePosition;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReservationAction;
import io.tideline.events.SwitchPath;
import io.tideline.events.Verdict;
import io.tideline.events.Victim;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.TopologyDrivers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The placement topology under {@link TopologyTestDriver} with a real schema registry: typed
 * inputs with explicit event times, decoded outputs. One per scenario.
 */
final class LedgerDriver implements AutoCloseable {

  static final String CLUSTER = "c1";

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final PlacementMeters meters = new PlacementMeters(registry);
  private final TopologyTestDriver driver;
  private final Serializer<Object> ser;
  private final Deserializer<Object> des;
  private final Map<String, TestInputTopic<byte[], byte[]>> inputs;
  private final Map<String, TestOutputTopic<byte[], byte[]>> outputs;

  /**
   * Whether every input is followed by a clock tick 1 ms later, so the kernel decides on it at
   * once (ADR 0008: decisions only at ticks). Scenarios about the tick rule itself turn it off.
   */
  boolean autoTick = true;

  LedgerDriver(String registryUrl) {
    this(registryUrl, PlacementPolicy.defaults(CLUSTER));
  }

  LedgerDriver(String registryUrl, PlacementPolicy policy) {
    Map<String, Object> serde = AvroSerdes.serdeConfig(registryUrl, true);
    ser = AvroSerdes.valueSerializer(serde);
    des = AvroSerdes.valueDeserializer(serde);
    driver = TopologyDrivers.start(PlacementTopology.build(policy, serde, meters), "placement-test");
    inputs = TopologyDrivers.rawInputs(driver, PlacementTopology.inputTopics());
    outputs = TopologyDrivers.rawOutputs(driver, PlacementTopology.outputTopics());
  }

  // ------------------------------------------------------------------ inputs

  void raw(String topic, String key, byte[] value, Instant at) {
    raw(topic, key, value, at, Provenance.ownerOf(topic)); // written by the topic's owner
  }

  /** As {@code producer} (its {@code tideline-producer} stamp; {@code null}: none). */
  void raw(String topic, String key, byte[] value, Instant at, String producer) {
    inputs.get(topic).pipeInput(new TestRecord<>(
        key == null ? null : key.getBytes(StandardCharsets.UTF_8), value,
        Provenance.stampOf(producer), at));
  }


  void send(String topic, String key, Object value, Instant at) {
    sendAs(Provenance.ownerOf(topic), topic, key, value, at);
  }

  /** As {@link #send}, stamped as written by {@code producer} ({@code null}: no stamp). */
  void sendAs(String producer, String topic, String key, Object value, Instant at) {
    boolean clock = TopicCatalogue.CLUSTER_CLOCK.equals(topic);
    if (autoTick && !clock && (last == null || at.isAfter(last))) {
      tick(at); // the cluster clock follows the scenario's time (inputs far ahead are refused)
    }
    raw(topic, key, ser.serialize(topic, value), at, producer);
    if (autoTick && !clock) {
      tick(at.plusMillis(1));
    }
  }

  /** The last tick sent. */
  private Instant last;

  /** {@code count} nodes of 8 GPUs named {@code n01…}, two per access switch. */
  void nodes(int count, Instant at) {
    for (NodeInventory n : ClusterNodes.joined(CLUSTER, count, at)) {
      send(TopicCatalogue.CLUSTER_INVENTORY, n.getNodeId(), n, at);
    }
  }

  /** One node of 8 GPUs reporting {@code model}, on access switch {@code asw}. */
  void node(String id, String asw, String model, NodeChange change, Instant at) {
    send(TopicCatalogue.CLUSTER_INVENTORY, id, NodeInventory.newBuilder().setCluster(CLUSTER)
        .setNodeId(id).setChange(change).setObservedAt(at).setGpuModel(model)
        .setGpuMemoryMiB(81920).setGpuCount(8)
        .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch(asw)
            .setAggregationSwitch("psw1").setCoreSwitch("dsw1").build())
        .build(), at);
  }

  /** The forecaster's F3 early release: a count of the service's GPUs, its own id. */
  void release(String service, double gpus, Instant at) {
    send(TopicCatalogue.CAPACITY_RESERVATIONS, service, CapacityReservation.newBuilder()
        .setReservationId(service + "@" + at + "/RELEASE").setServiceId(service)
        .setAction(ReservationAction.RELEASE).setGpus(gpus).setValidFrom(at).setValidUntil(at)
        .setQuantile("p95").setReason("over-forecast").setIssuedAt(at).build(), at);
  }

  /** The forecaster's F3 over-issue: {@code gpus} more from the shared pool until {@code until}. */
  void overIssue(String service, double gpus, Instant until, Instant at) {
    send(TopicCatalogue.CAPACITY_RESERVATIONS, service, CapacityReservation.newBuilder()
        .setReservationId(service + "@" + at + "/OVER_ISSUE").setServiceId(service)
        .setAction(ReservationAction.OVER_ISSUE).setGpus(gpus).setValidFrom(at)
        .setValidUntil(until).setQuantile("p95").setReason("under-forecast").setIssuedAt(at)
        .build(), at);
  }

  /** Submits {@code job} and admits it ({@code right}: with a granted preemption right). */
  void admit(JobSubmitted job, Verdict verdict, boolean right, Instant at) {
    send(TopicCatalogue.JOBS_SUBMITTED, job.getJobId(), job, at);
    send(TopicCatalogue.QUOTA_VERDICTS, job.getJobId(), QuotaVerdict.newBuilder()
        .setJobId(job.getJobId()).setTenant(job.getTenant()).setQueue("search/ranking")
        .setDecidedAt(at).setVerdict(verdict).setGpus(job.getResources().getGpuCount())
        .setPreemptible(job.getPreemptible()).setPreemptionRightGranted(right)
        .setReason("test").setPolicyVersion("q1").build(), at);
  }

  void admit(JobSubmitted job, Instant at) {
    admit(job, Verdict.GUARANTEED, false, at);
  }

  void lifecycle(String jobId, LifecycleType type, Instant at) {
    send(TopicCatalogue.JOBS_LIFECYCLE, jobId, JobLifecycle.newBuilder().setJobId(jobId)
        .setCluster(CLUSTER).setType(type).setOccurredAt(at).build(), at);
  }

  void tick(Instant at) {
    if (last == null || at.isAfter(last)) {
      last = at;
    }
    send(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, ClockTick.newBuilder().setCluster(CLUSTER)
        .setTime(at).setSequence(at.getEpochSecond()).setIntervalMillis(60_000)
        .setSource(ClockSource.SIMULATED).build(), at);
  }

  void reserve(String id, String service, double gpus, Instant from, Instant until, Instant at) {
    send(TopicCatalogue.CAPACITY_RESERVATIONS, service, CapacityReservation.newBuilder()
        .setReservationId(id).setServiceId(service).setAction(ReservationAction.RESERVE)
        .setGpus(gpus).setValidFrom(from).setValidUntil(until).setQuantile("p95")
        .setReason("forecast rise").setIssuedAt(at).build(), at);
  }

  void forecast(String service, io.tideline.events.SlotClass slot, Instant from, Instant to,
      Instant at) {
    send(TopicCatalogue.FORECAST_SLOTS, service, io.tideline.events.SlotForecast.newBuilder()
        .setServiceId(service).setSlotStart(from).setSlotEnd(to).setHoliday(false)
        .setSlotClass(slot).setP50(1).setP90(2).setP95(3).setP99(4).setSampleDays(14)
        .setComputedAt(at).build(), at);
  }

  void preemption(String requestId, String preemptor, long ledgerVersion, List<String> victims,
      Instant at) {
    List<Victim> vs = new ArrayList<>();
    for (String v : victims) {
      vs.add(Victim.newBuilder().setJobId(v).setTenant("search").setUser("alice").setScore(1)
          .setGpus(4).setCostGpuHours(0.1).setQueueBoost(1).build());
    }
    send(TopicCatalogue.PREEMPTION_DECISIONS, CLUSTER, PreemptionDecision.newBuilder()
        .setDecisionId("pd-" + requestId).setRequestId(requestId).setCluster(CLUSTER)
        .setPreemptorJobId(preemptor).setDecidedAt(at).setOutcome(PreemptionOutcome.PREEMPT)
        .setPreemptorScore(3).setVictims(vs).setTotalCostGpuHours(0.1).setGainGpuHours(2)
        .setLedgerVersion(ledgerVersion).setPolicyVersion("p1").build(), at);
  }

  /**
   * Quota names jobs to reclaim ({@code quota.reclaims}, stamped by quota-svc): {@code jobId}
   * itself for SHRINK/RECLAIM, {@code borrowers} for GUARANTEE.
   */
  void quotaReclaim(String jobId, io.tideline.events.ReclaimAction action, List<String> borrowers,
      int recommendedGpus, Instant at) {
    List<io.tideline.events.ReclaimBorrower> bs = new ArrayList<>();
    borrowers.forEach(b -> bs.add(new io.tideline.events.ReclaimBorrower(b, "q", 8.0, 8.0)));
    boolean guarantee = action == io.tideline.events.ReclaimAction.GUARANTEE;
    send(TopicCatalogue.QUOTA_RECLAIMS, jobId, io.tideline.events.QuotaReclaim.newBuilder()
        .setJobId(jobId).setTenant("search").setQueue("q").setAction(action).setCurrentGpus(8)
        .setRecommendedGpus(recommendedGpus).setPeakUtilisation(0.1).setReason("idle")
        .setDecidedAt(at).setPolicyVersion("q1").setBorrowers(bs)
        .setBeneficiaryJobId(guarantee ? jobId : null)
        .setReclaimId(guarantee ? CLUSTER + "/guarantee/" + jobId + "/" + at.toEpochMilli() : null)
        .build(), at);
  }

  /**
   * Preemption's answer with {@code trigger} (RESERVATION_START, IDLE_RECLAIM): decision id
   * {@code requestId + "/decision"}, as preemption-svc names them.
   */
  void reclaimDecision(String trigger, String requestId, String preemptor, long ledgerVersion,
      PreemptionOutcome outcome, List<String> victims, Instant at) {
    reclaimDecisionAs(Provenance.ownerOf(TopicCatalogue.PREEMPTION_DECISIONS), trigger, requestId,
        preemptor, ledgerVersion, outcome, victims, at);
  }

  /** As {@link #reclaimDecision}, written by {@code producer} ({@code null}: no stamp). */
  void reclaimDecisionAs(String producer, String trigger, String requestId, String preemptor,
      long ledgerVersion, PreemptionOutcome outcome, List<String> victims, Instant at) {
    List<Victim> vs = new ArrayList<>();
    for (String v : victims) {
      vs.add(Victim.newBuilder().setJobId(v).setTenant("search").setUser("alice").setScore(1)
          .setGpus(8).setCostGpuHours(0.1).setQueueBoost(1).build());
    }
    sendAs(producer, TopicCatalogue.PREEMPTION_DECISIONS, CLUSTER, PreemptionDecision.newBuilder()
        .setDecisionId(requestId + "/decision").setRequestId(requestId).setCluster(CLUSTER)
        .setPreemptorJobId(preemptor).setDecidedAt(at).setOutcome(outcome)
        .setPreemptorScore(20).setVictims(vs).setTotalCostGpuHours(0.1).setGainGpuHours(8)
        .setLedgerVersion(ledgerVersion).setPolicyVersion("p1").setTrigger(trigger).build(), at);
  }

  /**
   * The state a restart would restore from the ledger store now: every table of the store read
   * back through the host's {@code restore}, as the processor does at init.
   */
  io.tideline.core.scheduling.PlacementState restored() {
    io.tideline.platform.kernel.PlacementHost host =
        new io.tideline.platform.kernel.PlacementHost(PlacementPolicy.defaults(CLUSTER));
    Map<String, Map<String, org.apache.avro.specific.SpecificRecord>> tables =
        new java.util.HashMap<>();
    org.apache.kafka.streams.state.KeyValueStore<String, byte[]> store =
        driver.getKeyValueStore(PlacementTopology.STORE);
    try (var it = store.all()) {
      while (it.hasNext()) {
        var kv = it.next();
        int a = kv.key.indexOf('|');
        int b = kv.key.indexOf('|', a + 1);
        String table = kv.key.substring(a + 1, b);
        tables.computeIfAbsent(table, t -> new java.util.HashMap<>()).put(kv.key.substring(b + 1),
            io.tideline.platform.kernel.StoreCodec.decode(host.storeTypes().get(table), kv.value));
      }
    }
    return host.restore(tables, (topic, bytes) ->
        (org.apache.avro.specific.SpecificRecord) des.deserialize(topic, bytes));
  }

  // ------------------------------------------------------------------ outputs

  List<PlacementDecision> decisions() {
    return read(TopicCatalogue.PLACEMENT_DECISIONS);
  }

  List<Eviction> evictions() {
    return read(TopicCatalogue.EVICTIONS);
  }

  List<io.tideline.events.FragmentationReport> fragmentation() {
    return read(TopicCatalogue.PLACEMENT_FRAGMENTATION);
  }

  List<PreemptionRequest> preemptionRequests() {
    return read(TopicCatalogue.PREEMPTION_REQUESTS);
  }

  /** Queue records as (jobId, position or null for a tombstone). */
  List<Map.Entry<String, QueuePosition>> queue() {
    List<Map.Entry<String, QueuePosition>> out = new ArrayList<>();
    for (var r : outputs.get(TopicCatalogue.PLACEMENT_QUEUE).readRecordsToList()) {
      out.add(new java.util.AbstractMap.SimpleEntry<>(new String(r.key(), StandardCharsets.UTF_8),
          r.value() == null ? null : (QueuePosition) des.deserialize("q", r.value())));
    }
    return out;
  }

  List<DeadLetter> deadLetters(String topic) {
    return read(topic + ".dlq");
  }

  @SuppressWarnings("unchecked")
  private <T> List<T> read(String topic) {
    List<T> out = new ArrayList<>();
    for (byte[] v : outputs.get(topic).readValuesToList()) {
      out.add((T) des.deserialize(topic, v));
    }
    return out;
  }

  @Override
  public void close() {
    driver.close();
  }
}
