package io.tideline.notifier.app;

import io.tideline.platform.security.Identity;
import io.tideline.platform.security.ProducerStamp;
import io.tideline.platform.security.Provenance;
import io.tideline.core.preemption.TroughSlot;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.DeliveryStatus;
import io.tideline.events.Eviction;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.Notice;
import io.tideline.events.NoticeDelivery;
import io.tideline.events.NoticeJoin;
import io.tideline.events.NoticeKind;
import io.tideline.events.NotifyPreference;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QueuePosition;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotForecast;
import io.tideline.events.Victim;
import io.tideline.notifier.channel.SendFailure;
import io.tideline.notifier.channel.Sender;
import io.tideline.notifier.compose.NoticeComposer;
import io.tideline.notifier.compose.NoticeIds;
import io.tideline.notifier.compose.QuotaLink;
import io.tideline.notifier.compose.QuotaRequest;
import io.tideline.notifier.delivery.Backoff;
import io.tideline.notifier.delivery.Channel;
import io.tideline.notifier.delivery.DigestWindows;
import io.tideline.notifier.delivery.Outbox;
import io.tideline.notifier.delivery.RateLimiter;
import io.tideline.notifier.join.EvictionJoin;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.WebhookTargets;
import io.tideline.platform.validation.InputBounds;
import io.tideline.platform.validation.RecordIntake;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * The notifier's one worker thread: composes notices from applied facts, publishes them on
 * {@code notices}, and delivers them on each user's channels exactly once (P7, O3).
 *
 * <p>Notices follow applied facts, never intentions: a preemption decision is only an intention
 * (placement may refuse it as stale), so a PREEMPTED, RECLAIMED or SHRUNK notice goes out for the
 * {@code Eviction} placement applied, joined by {@link EvictionJoin} with the decision that ordered
 * it for the explanation, whichever of the two is read first. The join's waiting halves are kept
 * on the compacted {@code notices.joins} (written after the notices of a batch are acknowledged,
 * before its offsets are committed) and restored at start, so a restart or a crash neither loses
 * nor repeats a notice (ADR 0019). The join's deadlines run on the facts' event time (decisions,
 * evictions, lifecycle, clock ticks), which notices read back cannot move.
 *
 * <p>How exactly-once per notice and channel holds across crashes and audit replays:
 *
 * <ol>
 *   <li>Notice ids are deterministic (decision + job + kind), so any re-reading of the inputs —
 *       a restart before the offsets were committed, or a fresh consumer group replaying from
 *       offset 0 — recomputes the same ids.
 *   <li>At start the engine reads {@code notices} and {@code notices.deliveries} (compacted, key
 *       {@code noticeId|channel}) from the beginning: every id ever published is known (not
 *       published again) and every delivered or dead-lettered id+channel is known (never sent
 *       again). Notices published but not yet delivered are queued again: nothing held in memory
 *       (quiet hours, digest windows) is lost by a crash.
 *   <li>Before each send a SENDING record (with the message's idempotency key) is written and
 *       acknowledged; after it, DELIVERED (or DEAD_LETTERED). A crash between the send and the
 *       DELIVERED record leaves SENDING: the next engine sends that same message again (same
 *       entries, same key — the e-mail's {@code Message-ID}, the webhook's
 *       {@code Idempotency-Key}), so a receiver that dedupes shows it once (ADR 0014).
 * </ol>
 *
 * <p>No poison pill: every record of every input and of the restore is decoded and checked with
 * the platform's shared {@link RecordIntake}; one it refuses, or one whose handling throws, is
 * dead-lettered with the reason ({@code <topic>.dlq}; records of topics other services
 * dead-letter — submissions, forecasts, notices — are skipped and counted) and the engine goes
 * on with the next. {@link #health()} tells whether the loop is alive and turning.
 *
 * <p>Input offsets are committed only after the notices they produced are on the broker. Time is
 * event time: the stream time is the largest event time seen (decisions, lifecycle facts,
 * evictions, clock ticks, notices); quiet hours and digest windows release against it.
 */
public final class NotifierEngine implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(NotifierEngine.class);

  static final String DELIVERY = "DELIVERY";
  static final String PROCESSING = "PROCESSING";
  static final String DIRECTORY = "notify.directory";
  static final String DELIVERIES = "notices.deliveries";
  /** The join's waiting halves (compacted; ADR 0019). */
  static final String JOINS = "notices.joins";
  /** State topics whose bad records the notifier (their only reader) dead-letters, once. */
  static final List<String> OWN_STATE = List.of(DIRECTORY, TopicCatalogue.PLACEMENT_QUEUE,
      DELIVERIES, JOINS);
  /** The event type each input topic carries. */
  static final Map<String, Class<?>> TYPES = Map.ofEntries(
      Map.entry(TopicCatalogue.PLACEMENT_QUEUE, QueuePosition.class),
      Map.entry(TopicCatalogue.FORECAST_SLOTS, SlotForecast.class),
      Map.entry(DIRECTORY, NotifyPreference.class),
      Map.entry(TopicCatalogue.JOBS_SUBMITTED, JobSubmitted.class),
      Map.entry(TopicCatalogue.NOTICES, Notice.class),
      Map.entry(DELIVERIES, NoticeDelivery.class),
      Map.entry(JOINS, NoticeJoin.class),
      Map.entry(TopicCatalogue.PREEMPTION_DECISIONS, PreemptionDecision.class),
      Map.entry(TopicCatalogue.JOBS_LIFECYCLE, JobLifecycle.class),
      Map.entry(TopicCatalogue.EVICTIONS, Eviction.class),
      Map.entry(TopicCatalogue.CLUSTER_CLOCK, ClockTick.class));
  static final List<String> STATE_TOPICS = List.of(TopicCatalogue.PLACEMENT_QUEUE,
      TopicCatalogue.FORECAST_SLOTS, DIRECTORY, TopicCatalogue.JOBS_SUBMITTED,
      TopicCatalogue.NOTICES, DELIVERIES, JOINS);
  static final List<String> EVENT_TOPICS = List.of(TopicCatalogue.PREEMPTION_DECISIONS,
      TopicCatalogue.JOBS_LIFECYCLE, TopicCatalogue.EVICTIONS, TopicCatalogue.CLUSTER_CLOCK);

  /** A published notice waiting for delivery, with its record for a dead letter. */
  record Pending(Notice notice, ConsumerRecord<byte[], byte[]> raw) {}

  /** A write of the current batch and what it was for. */
  private record Ack(String noticeId, Future<RecordMetadata> future) {}

  /**
   * What the join holds, for tests and health: the decisions and evictions waiting.
   *
   * @param decisions ids of the decisions waiting for evictions
   * @param evictions ids of the evictions waiting for their decision
   */
  public record Waiting(Set<String> decisions, Set<String> evictions) {}

  private final NotifierConfig config;
  private final String groupId;
  private final Map<String, Object> kafka;
  private final Map<String, Object> serde;
  private final Directory directory;
  private final NoticeRenderer renderer;
  private final Map<Channel, Sender> senders;
  private final DeadLetters deadLetters;
  private final NotifierMeters meters;

  private final Map<String, QueuePosition> queue = new ConcurrentHashMap<>();
  private final Set<TroughSlot> troughs = new ConcurrentSkipListSet<>();
  private final Map<String, NoticeComposer.Owner> owners = new ConcurrentHashMap<>();
  private final Set<String> knownNotices = ConcurrentHashMap.newKeySet();
  private final Set<String> readBack = ConcurrentHashMap.newKeySet();
  /** The latest delivery record per noticeId|channel (SENDING, DELIVERED, DEAD_LETTERED). */
  private final Map<String, NoticeDelivery> deliveries = new HashMap<>();
  /** Records of {@link #OWN_STATE} topics already dead-lettered (topic-partition@offset). */
  private final Set<String> lettered = new HashSet<>();
  private final Outbox<Pending> outbox = new Outbox<>();
  private final DigestWindows windows;
  private final Map<Channel, RateLimiter> limiters = new EnumMap<>(Channel.class);
  private final Backoff backoff;
  private final NoticeComposer.Context context;
  /** The eviction-decision join; only the worker thread touches it. */
  private EvictionJoin join;
  /** The notices and join-state writes of the batch being handled, in order. */
  private final List<Ack> batchNotices = new ArrayList<>();
  private final List<EvictionJoin.Change> batchChanges = new ArrayList<>();
  private volatile Waiting waiting = new Waiting(Set.of(), Set.of());

  private final InputBounds bounds;
  private KafkaProducer<String, Object> producer;
  private RecordIntake intake;
  private volatile Instant streamTime = Instant.EPOCH;
  /** Event time of the facts alone (the join's clock): notices read back do not move it. */
  private Instant factTime = Instant.EPOCH;
  private volatile boolean running;
  private volatile boolean restored;
  private volatile long heartbeat = System.nanoTime();
  private volatile String stoppedBy;
  private Thread thread;

  public NotifierEngine(NotifierConfig config, String groupId, Map<String, Object> kafka,
      Map<String, Object> serde, Directory directory, NoticeRenderer renderer,
      Map<Channel, Sender> senders, DeadLetters deadLetters, NotifierMeters meters,
      InputBounds bounds) {
    this.config = config;
    this.bounds = bounds;
    this.groupId = groupId;
    this.kafka = kafka;
    this.serde = serde;
    this.directory = directory;
    this.renderer = renderer;
    this.senders = senders;
    this.deadLetters = deadLetters;
    this.meters = meters;
    this.windows = new DigestWindows(config.digestWindow());
    this.limiters.put(Channel.SLACK, new RateLimiter(config.slack().minInterval()));
    this.limiters.put(Channel.EMAIL, new RateLimiter(config.email().minInterval()));
    this.backoff = new Backoff(config.retry().initialBackoff(), config.retry().multiplier(),
        config.retry().maxBackoff());
    this.join = new EvictionJoin(config.join().decisionHorizon(), config.join().evictionWait());
    this.context = new NoticeComposer.Context() {
      @Override
      public QueuePosition queue(String jobId) {
        return queue.get(jobId);
      }

      @Override
      public Collection<TroughSlot> troughs() {
        return troughs;
      }

      @Override
      public NoticeComposer.Profile profile(String userId) {
        return directory.profile(userId);
      }

      @Override
      public String quotaUrl(String tenant, String jobId) {
        return QuotaLink.of(config.quotaRequestUrl(), tenant, jobId);
      }
    };
  }

  /** Starts the worker thread: restore, then consume and deliver until {@link #close()}. */
  public synchronized void start() {
    Map<String, Object> p = new HashMap<>(kafka);
    p.putAll(serde);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "notifier-" + groupId);
    ProducerStamp.configure(p, Identity.NOTIFIER.user()); // notices and its state (ADR 0029)
    @SuppressWarnings("unchecked")
    Serializer<Object> valueSerializer = io.tideline.platform.serde.AvroSerdes.valueSerializer(serde);
    producer = new KafkaProducer<>(p, new StringSerializer(), valueSerializer);
    // A directory entry's webhook host is looked up at intake: a name resolving inside the
    // network is dead-lettered with the reason, as a literal loopback address is.
    intake = new RecordIntake(io.tideline.platform.serde.AvroSerdes.valueDeserializer(serde),
        new EventValidator(bounds, WebhookTargets.DNS));
    running = true;
    thread = new Thread(this::run, "notifier-engine-" + groupId);
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether the start-up restore is done (deliveries, notices, directory, queue read). */
  public boolean restored() {
    return restored;
  }

  /**
   * Where the engine stands, for {@code /q/health}: its worker thread alive, the restore done, and
   * the loop having turned within {@code stalledAfter} (a send's retries and back-off included).
   */
  public Health health(Duration stalledAfter) {
    boolean alive = thread != null && thread.isAlive() && running;
    Duration since = Duration.ofNanos(System.nanoTime() - heartbeat);
    return new Health(alive, restored, since, alive && since.compareTo(stalledAfter) <= 0,
        stoppedBy);
  }

  /**
   * The engine's health.
   *
   * @param alive the worker thread runs
   * @param restored the start-up restore is done
   * @param sinceLastTurn how long ago the loop last turned
   * @param turning alive and turned within the allowed time
   * @param stoppedBy why the worker stopped, when it did
   */
  public record Health(boolean alive, boolean restored, Duration sinceLastTurn, boolean turning,
      String stoppedBy) {}

  /** The stream time (largest event time seen). */
  public Instant streamTime() {
    return streamTime;
  }

  /** Whether the queue position of a job is known (tests wait on it). */
  public boolean knowsQueuePosition(String jobId) {
    return queue.containsKey(jobId);
  }

  /** Whether the forecast trough starting at {@code start} is known (tests wait on it). */
  public boolean knowsTroughAt(Instant start) {
    return troughs.stream().anyMatch(t -> t.start().equals(start));
  }

  /** Whether a notice has been read back from {@code notices} and queued (tests wait on it). */
  public boolean hasQueued(String noticeId) {
    return readBack.contains(noticeId);
  }

  /** The decisions and evictions the join holds (as of the last committed batch). */
  public Waiting waiting() {
    return waiting;
  }

  /** Whether the owner of a job is known (tests wait on it). */
  public boolean knowsOwner(String jobId) {
    return owners.containsKey(jobId);
  }

  /** The directory in use. */
  public Directory directory() {
    return directory;
  }

  /**
   * Acknowledges a quota request: composes the QUOTA_REQUEST_ACK notice and publishes it; the
   * engine delivers it like any other. Idempotent per request id.
   *
   * @return the notice id
   */
  public String acknowledge(QuotaRequest request) {
    Notice n = NoticeComposer.quotaAck(request, context);
    try {
      publish(n);
      producer.flush();
    } catch (RuntimeException e) {
      throw new IllegalStateException("could not publish " + n.getNoticeId() + ": " + e, e);
    }
    return n.getNoticeId();
  }

  /** Publishes a checked directory entry on {@code notify.directory} and waits for the broker. */
  public void publishPreference(NotifyPreference entry) {
    try {
      producer.send(new ProducerRecord<>(DIRECTORY, entry.getUserId(), entry)).get(30,
          java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(String.valueOf(e.getCause() == null ? e : e.getCause()), e);
    }
  }

  private void run() {
    try (KafkaConsumer<byte[], byte[]> state = new KafkaConsumer<>(stateConsumerConfig(),
            new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaConsumer<byte[], byte[]> events = new KafkaConsumer<>(eventConsumerConfig(),
            new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      restore(state);
      events.subscribe(EVENT_TOPICS);
      while (running) {
        heartbeat = System.nanoTime();
        try {
          // 1. State first (queue, directory, forecast, notices, deliveries), record by record.
          for (ConsumerRecord<byte[], byte[]> r : state.poll(Duration.ofMillis(10))) {
            try {
              guarded(r, () -> applyState(r, null));
            } catch (Retry retry) {
              state.seek(new TopicPartition(r.topic(), r.partition()), r.offset());
              throw retry;
            }
          }
          // 2. Decisions and facts: join, compose, publish; then the join's state; then commit.
          var batch = events.poll(config.pollTimeout());
          if (!batch.isEmpty()) {
            EvictionJoin before = join.copy();
            try {
              for (ConsumerRecord<byte[], byte[]> r : batch) {
                guarded(r, () -> handleEvent(r));
              }
              // The notices on the broker first, then the join state that assumes them, then
              // the offsets: a crash anywhere re-reads the batch, and ids already published
              // are not published again.
              producer.flush();
              awaitAcks(batchNotices, "notice");
              List<Ack> joinWrites = writeJoinChanges();
              producer.flush();
              awaitAcks(joinWrites, "join state");
              events.commitSync();
              waiting = new Waiting(join.waitingDecisionIds(), join.waitingEvictionIds());
            } catch (RuntimeException e) {
              // nothing of this batch is committed: read it again from the join as it was
              join = before;
              rewind(events);
              throw e;
            } finally {
              batchNotices.clear();
              batchChanges.clear();
            }
          }
          // 3. Deliver what is due at the stream time.
          for (Outbox.Batch<Pending> b : outbox.due(streamTime)) {
            deliver(b);
            heartbeat = System.nanoTime();
          }
        } catch (org.apache.kafka.common.errors.InterruptException e) {
          break;
        } catch (RuntimeException e) {
          // the broker or the registry is away (a write could not be acknowledged): nothing was
          // acknowledged past what is recorded, so retry the same work
          LOG.errorf(e, "notifier loop failed, going on: %s", e.getMessage());
          sleep(Duration.ofMillis(500));
        }
      }
    } catch (RuntimeException | Error e) {
      stoppedBy = String.valueOf(e);
      LOG.errorf(e, "notifier engine stopped: %s", e.getMessage());
      if (e instanceof Error err) {
        throw err;
      }
    } finally {
      running = false;
    }
  }

  /**
   * Runs the handling of one record; if it throws, the record is dead-lettered with the reason
   * (or skipped and counted, for a topic another service dead-letters) and the engine goes on.
   */
  private void guarded(ConsumerRecord<byte[], byte[]> r, Runnable handling) {
    try {
      handling.run();
    } catch (org.apache.kafka.common.errors.InterruptException | Retry e) {
      throw e;
    } catch (RuntimeException e) {
      if (unacknowledged(e)) {
        throw new Retry(e); // the broker is away: handle this record again, never drop it
      }
      LOG.errorf(e, "%s-%d@%d could not be handled: %s", r.topic(), r.partition(), r.offset(),
          e.getMessage());
      try {
        refuse(r, PROCESSING, "handling failed: " + e);
      } catch (RuntimeException letter) {
        throw new Retry(letter);
      }
    }
  }

  /** Whether {@code e} says a write was not acknowledged (the broker is away), not bad input. */
  private static boolean unacknowledged(RuntimeException e) {
    String m = String.valueOf(e.getMessage());
    return e instanceof org.apache.kafka.common.KafkaException
        || m.startsWith("could not dead-letter") || m.startsWith("could not record delivery")
        || m.startsWith("interrupted while dead-lettering");
  }

  /** A record to handle again: a write it needed was not acknowledged. */
  private static final class Retry extends RuntimeException {
    Retry(Throwable cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** Moves the event consumer back to its committed offsets (the batch is read again). */
  private static void rewind(KafkaConsumer<byte[], byte[]> events) {
    try {
      var assigned = events.assignment();
      var committed = events.committed(assigned);
      for (TopicPartition tp : assigned) {
        var c = committed.get(tp);
        if (c != null) {
          events.seek(tp, c.offset());
        } else {
          events.seekToBeginning(List.of(tp));
        }
      }
    } catch (RuntimeException e) {
      LOG.warnf("could not rewind the event consumer: %s", e);
    }
  }

  /** Reads the state topics from the beginning to their current end. */
  private void restore(KafkaConsumer<byte[], byte[]> state) {
    // 0. Which bad records of our own state topics are dead-lettered already (so a restart does
    //    not letter them again).
    readLettered(state);
    List<TopicPartition> parts = new ArrayList<>();
    for (String t : STATE_TOPICS) {
      List<PartitionInfo> infos = state.partitionsFor(t);
      if (infos != null) {
        infos.forEach(i -> parts.add(new TopicPartition(t, i.partition())));
      }
    }
    state.assign(parts);
    state.seekToBeginning(parts);
    Map<TopicPartition, Long> end = state.endOffsets(parts);
    List<Pending> buffered = new ArrayList<>();
    // 1. Read everything up to the end offsets seen at start, buffering the notices.
    while (running && end.entrySet().stream().anyMatch(e -> state.position(e.getKey()) < e.getValue())) {
      heartbeat = System.nanoTime();
      for (ConsumerRecord<byte[], byte[]> r : state.poll(Duration.ofMillis(200))) {
        try {
          guarded(r, () -> applyState(r, buffered));
        } catch (Retry retry) {
          LOG.warnf("restore waits for the broker: %s", retry.getMessage());
          state.seek(new TopicPartition(r.topic(), r.partition()), r.offset());
          sleep(Duration.ofMillis(500));
          break;
        }
      }
    }
    // 2. Only now, with directory and deliveries complete, queue the notices not yet delivered.
    for (Pending p : buffered) {
      try {
        guarded(p.raw(), () -> enqueue(p));
      } catch (Retry retry) {
        LOG.errorf("could not queue %s: %s", p.notice().getNoticeId(), retry.getMessage());
      }
    }
    waiting = new Waiting(join.waitingDecisionIds(), join.waitingEvictionIds());
    restored = true;
    long inDoubt = deliveries.values().stream()
        .filter(d -> d.getStatus() == DeliveryStatus.SENDING).count();
    LOG.infof("notifier %s restored: %d notices known, %d deliveries (%d in doubt, re-sent with"
        + " their idempotency keys), %d waiting; join: %d decisions wait for evictions, %d"
        + " evictions for decisions", groupId, knownNotices.size(), deliveries.size(), inDoubt,
        outbox.size(), join.decisionsWaiting(), join.evictionsWaiting());
  }

  /** Reads the dead-letter topics of {@link #OWN_STATE}: what is lettered already. */
  private void readLettered(KafkaConsumer<byte[], byte[]> consumer) {
    List<TopicPartition> parts = new ArrayList<>();
    for (String t : OWN_STATE) {
      List<PartitionInfo> infos = consumer.partitionsFor(t + ".dlq");
      if (infos != null) {
        infos.forEach(i -> parts.add(new TopicPartition(t + ".dlq", i.partition())));
      }
    }
    if (parts.isEmpty()) {
      return;
    }
    consumer.assign(parts);
    consumer.seekToBeginning(parts);
    Map<TopicPartition, Long> end = consumer.endOffsets(parts);
    var letters = io.tideline.platform.serde.AvroSerdes.valueDeserializer(serde);
    while (running && end.entrySet().stream()
        .anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        try {
          if (letters.deserialize(r.topic(), r.value()) instanceof DeadLetter l) {
            lettered.add(l.getOriginalTopic() + "-" + l.getPartition() + "@" + l.getOffset());
          }
        } catch (RuntimeException e) {
          LOG.debugf("unreadable letter %s-%d@%d", r.topic(), r.partition(), r.offset());
        }
      }
    }
    consumer.unsubscribe();
  }

  private void applyState(ConsumerRecord<byte[], byte[]> r, List<Pending> buffer) {
    String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
    RecordIntake.Outcome o = intake.read(r.topic(), r.key(), r.value(), r.timestamp(),
        TYPES.get(r.topic()));
    if (o instanceof RecordIntake.Refused refused) {
      refuseState(r, refused.errorClass(), refused.reason());
      return;
    }
    Object v = o instanceof RecordIntake.Accepted a ? a.event() : null;
    switch (r.topic()) {
      case TopicCatalogue.PLACEMENT_QUEUE -> {
        if (v == null) {
          queue.remove(key);
        } else {
          QueuePosition q = (QueuePosition) v;
          queue.put(q.getJobId(), q);
        }
      }
      case TopicCatalogue.FORECAST_SLOTS -> {
        SlotForecast f = (SlotForecast) v;
        if (f.getSlotClass() == SlotClass.TROUGH || f.getSlotClass() == SlotClass.DEEP_TROUGH) {
          troughs.add(new TroughSlot(f.getSlotStart(), f.getSlotEnd()));
        }
      }
      case DIRECTORY -> directory.put(key, (NotifyPreference) v);
      case TopicCatalogue.JOBS_SUBMITTED -> {
        JobSubmitted j = (JobSubmitted) v;
        owners.put(j.getJobId(), new NoticeComposer.Owner(j.getUser(), j.getTenant()));
        directory.contacts(j.getUser(), j.getContacts());
      }
      case TopicCatalogue.NOTICES -> {
        Notice n = (Notice) v;
        knownNotices.add(n.getNoticeId());
        readBack.add(n.getNoticeId());
        advance(n.getCreatedAt());
        Pending p = new Pending(n, r);
        if (buffer != null) {
          buffer.add(p);
        } else {
          enqueue(p);
        }
      }
      case DELIVERIES -> {
        NoticeDelivery d = (NoticeDelivery) v;
        String k = d.getNoticeId() + "|" + d.getChannel();
        deliveries.put(k, d);
        if (d.getStatus() != DeliveryStatus.SENDING) {
          outbox.remove(k);
        }
      }
      case JOINS -> {
        // Only at start: afterwards the join in memory is ahead of its own writes read back.
        if (restored) {
          return;
        }
        if (v == null) {
          join.forget(key);
        } else {
          String problem = join.restore(key, (NoticeJoin) v);
          if (problem != null) {
            refuseState(r, DeadLetters.VALIDATION, problem);
          }
        }
      }
      default -> LOG.debugf("ignoring %s", r.topic());
    }
  }

  /**
   * A state record the shared check refuses: dead-lettered once if the notifier is its topic's
   * only reader, else (submissions, forecasts, notices: dead-lettered by others, or ours) skipped
   * and counted.
   */
  private void refuseState(ConsumerRecord<byte[], byte[]> r, String errorClass, String reason) {
    String where = r.topic() + "-" + r.partition() + "@" + r.offset();
    if (OWN_STATE.contains(r.topic())) {
      if (lettered.add(where)) {
        refuse(r, errorClass, reason);
      } else {
        meters.input(r.topic(), "dead_lettered_before");
      }
      return;
    }
    LOG.warnf("skipping %s: %s", where, reason);
    meters.input(r.topic(), "skipped");
  }

  private void handleEvent(ConsumerRecord<byte[], byte[]> r) {
    // Before anything is decoded: a decision, eviction or lifecycle fact not written by its
    // topic's owner tells nobody anything (ADR 0029).
    String forged = Provenance.DEFAULT.refusal(r.topic(), r.headers());
    if (forged != null) {
      refuse(r, DeadLetters.PROVENANCE, forged);
      return;
    }
    RecordIntake.Outcome o = intake.read(r.topic(), r.key(), r.value(), r.timestamp(),
        TYPES.get(r.topic()));
    if (!(o instanceof RecordIntake.Accepted accepted)) {
      RecordIntake.Refused refused = o instanceof RecordIntake.Refused x ? x
          : new RecordIntake.Refused(DeadLetters.DESERIALIZATION, "empty record (null value)");
      refuse(r, refused.errorClass(), "not a readable " + r.topic() + " record: "
          + refused.reason());
      return;
    }
    Object v = accepted.event();
    if (v instanceof PreemptionDecision d) {
      advanceFacts(d.getDecidedAt());
      for (Victim victim : d.getVictims()) {
        if (victim.getUser() == null || victim.getUser().isBlank()) {
          refuse(r, DeadLetters.VALIDATION, "decision " + d.getDecisionId() + ": victim "
              + victim.getJobId() + " has no owner (victims[].user is empty)");
          return;
        }
      }
      d.getVictims().forEach(victim -> owners.put(victim.getJobId(),
          new NoticeComposer.Owner(victim.getUser(), victim.getTenant())));
      // An intention: no notice of its own; it waits for the evictions placement applies.
      apply(join.decision(d));
    } else if (v instanceof JobLifecycle l) {
      advanceFacts(l.getOccurredAt());
      if (l.getType() == LifecycleType.RESUMED) {
        NoticeComposer.Owner owner = owner(r, l.getJobId());
        if (owner != null) {
          publishInBatch(NoticeComposer.resumed(l, owner, context));
        }
        apply(join.advance(factTime));
        return;
      }
    } else if (v instanceof Eviction e) {
      advanceFacts(e.getIssuedAt());
      if (e.getEvictionId().isBlank() || e.getJobId().isBlank()) {
        refuse(r, DeadLetters.VALIDATION, "eviction " + e.getEvictionId() + " of job "
            + e.getJobId() + ": an eviction needs its evictionId and jobId");
        return;
      }
      NoticeKind kind = NoticeComposer.kindOf(e.getKind());
      // The applied fact (MIGRATE stays silent). One already told, read again, still counts as
      // applied for its waiting decision, but waits for nothing else.
      if (kind != null && !join.waitsForEvictionsOf(e.getDecisionId())
          && knownNotices.contains(NoticeIds.of(e.getDecisionId(), e.getJobId(), kind))) {
        meters.join("already_notified");
      } else {
        apply(join.eviction(e));
      }
    } else if (v instanceof ClockTick t) {
      advanceFacts(t.getTime());
    }
    apply(join.advance(factTime));
    meters.input(r.topic(), "accepted");
  }

  /** Keeps a join step's state changes for the batch's end and publishes its notices. */
  private void apply(EvictionJoin.Step step) {
    batchChanges.addAll(step.changes());
    for (EvictionJoin.Outcome o : step.outcomes()) {
      Eviction e = o.eviction();
      Notice n;
      String outcome;
      if (o instanceof EvictionJoin.Explained x) {
        n = NoticeComposer.evicted(e, x.decision(), x.victim(), null, context);
        outcome = "explained";
      } else {
        NoticeComposer.Owner owner = owners.get(e.getJobId());
        LOG.infof("eviction %s of %s notified without its decision: %s", e.getEvictionId(),
            e.getJobId(), ((EvictionJoin.Unexplained) o).why());
        n = owner == null ? null : NoticeComposer.evicted(e, null, null, owner, context);
        outcome = owner == null ? "no_owner" : "unexplained";
        if (owner == null) {
          LOG.warnf("no owner known for job %s (eviction %s): no notice", e.getJobId(),
              e.getEvictionId());
        }
      }
      if (n != null && !publishInBatch(n)) {
        outcome = "already_notified";
      }
      meters.join(outcome);
    }
    for (String id : step.expiredDecisions()) {
      LOG.infof("decision %s: no eviction applied within %s of it, so nobody is told about it",
          id, config.join().decisionHorizon());
      meters.join("decision_expired");
    }
  }

  /** Sends the batch's join-state changes to {@code notices.joins} (a Remove is a tombstone). */
  private List<Ack> writeJoinChanges() {
    List<Ack> acks = new ArrayList<>();
    for (EvictionJoin.Change c : batchChanges) {
      Object value = c instanceof EvictionJoin.Put p ? p.entry() : null;
      acks.add(new Ack(null, producer.send(new ProducerRecord<>(JOINS, c.key(), value))));
    }
    return acks;
  }

  /**
   * Waits for the batch's writes; a notice whose write failed is forgotten (so reading the batch
   * again publishes it), and any failure fails the batch.
   */
  private void awaitAcks(List<Ack> acks, String what) {
    RuntimeException failed = null;
    for (Ack a : acks) {
      try {
        a.future().get();
      } catch (Exception ex) {
        if (a.noticeId() != null) {
          knownNotices.remove(a.noticeId());
        }
        if (failed == null) {
          failed = new IllegalStateException("could not write " + what + ": " + ex, ex);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  private NoticeComposer.Owner owner(ConsumerRecord<byte[], byte[]> r, String jobId) {
    NoticeComposer.Owner o = owners.get(jobId);
    if (o == null) {
      LOG.warnf("no owner known for job %s (%s-%d@%d): no notice", jobId, r.topic(),
          r.partition(), r.offset());
      meters.input(r.topic(), "skipped");
    } else {
      meters.input(r.topic(), "accepted");
    }
    return o;
  }

  private void refuse(ConsumerRecord<byte[], byte[]> r, String errorClass, String reason) {
    deadLetters.park(r, errorClass, reason);
    meters.input(r.topic(), "dead_lettered");
    LOG.warnf("dead-lettered %s-%d@%d: %s", r.topic(), r.partition(), r.offset(), reason);
  }

  private void publish(Notice n) {
    if (knownNotices.add(n.getNoticeId())) {
      producer.send(new ProducerRecord<>(TopicCatalogue.NOTICES, n.getUserId(), n));
      meters.composed(n.getKind().name());
    }
  }

  /**
   * Publishes a notice of the batch being handled, keeping its write to await before commit.
   *
   * @return false when its id was published before (nothing sent)
   */
  private boolean publishInBatch(Notice n) {
    if (!knownNotices.add(n.getNoticeId())) {
      return false;
    }
    batchNotices.add(new Ack(n.getNoticeId(),
        producer.send(new ProducerRecord<>(TopicCatalogue.NOTICES, n.getUserId(), n))));
    meters.composed(n.getKind().name());
    return true;
  }

  /** Puts a published notice on each of the user's channels not yet delivered. */
  private void enqueue(Pending p) {
    Notice n = p.notice();
    Route route = directory.resolve(n.getUserId());
    if (route.channels().isEmpty()) {
      LOG.warnf("user %s has no channel with an address: notice %s not sent", n.getUserId(),
          n.getNoticeId());
      meters.delivery("none", "no_channel", 1);
      return;
    }
    // 1. Digest window (not for acknowledgements, which answer a request), then quiet hours.
    boolean digestible = route.digest() && n.getKind() != NoticeKind.QUOTA_REQUEST_ACK;
    Instant base = digestible ? windows.windowEnd(n.getUserId(), n.getCreatedAt()) : n.getCreatedAt();
    Instant release = route.quiet().releaseAt(base);
    // 2. One entry per channel, unless that channel has it already; a message in doubt (SENDING
    //    left by a crash) goes out again as it was, with its key.
    for (Channel ch : route.channels()) {
      String key = n.getNoticeId() + "|" + ch;
      NoticeDelivery known = deliveries.get(key);
      if (known != null && known.getStatus() != DeliveryStatus.SENDING) {
        meters.delivery(ch.name(), "already_delivered", 1);
        continue;
      }
      String resendKey = known == null ? null : known.getIdempotencyKey();
      outbox.add(new Outbox.Entry<>(key, n.getUserId(), ch,
          known == null ? release : known.getReleasedAt(), n.getCreatedAt(), digestible, p,
          resendKey));
    }
  }

  private void deliver(Outbox.Batch<Pending> b) {
    Route route = directory.resolve(b.userId());
    Channel ch = b.channel();
    String dest = route.destination(ch);
    String idempotencyKey = b.resendKey() != null ? b.resendKey() : idempotencyKey(b);
    if (dest == null) {
      close(b, DeliveryStatus.DEAD_LETTERED, 0, "no " + ch + " address for " + b.userId(),
          idempotencyKey);
      return;
    }
    if (ch == Channel.SLACK) {
      // Looked up again before each send: a name may have been re-pointed inside since intake.
      String unusable = new EventValidator(bounds, WebhookTargets.DNS_IF_RESOLVABLE)
          .webhookProblem(dest);
      if (unusable != null) {
        close(b, DeliveryStatus.DEAD_LETTERED, 0, "webhook " + unusable, idempotencyKey);
        return;
      }
    }
    NoticeRenderer.Rendered message;
    try {
      message = renderer.render(b.entries().stream().map(e -> e.payload().notice()).toList(), route);
    } catch (RuntimeException e) {
      close(b, DeliveryStatus.DEAD_LETTERED, 0, "rendering failed: " + e.getMessage(),
          idempotencyKey);
      return;
    }
    // 1. Record SENDING (acknowledged) before anything leaves: a crash from here on is resolved
    //    at the next start by sending this same message again with this same key.
    record(b, DeliveryStatus.SENDING, 0, "", idempotencyKey);
    RateLimiter limiter = limiters.get(ch);
    int max = Math.max(1, config.retry().maxAttempts());
    for (int attempt = 1; ; attempt++) {
      heartbeat = System.nanoTime();
      // 2. Respect the channel's rate limit for this destination.
      long wait = limiter.waitNanos(dest, System.nanoTime());
      if (wait > 0) {
        sleep(Duration.ofNanos(wait));
      }
      try {
        senders.get(ch).send(route, message, idempotencyKey);
        limiter.sent(dest, System.nanoTime());
        // 3. Sent: record it before anything else.
        close(b, DeliveryStatus.DELIVERED, attempt, b.resendKey() == null ? ""
            : "re-sent after a restart with the same idempotency key", idempotencyKey);
        meters.message(ch.name(), b.digest());
        return;
      } catch (SendFailure f) {
        limiter.sent(dest, System.nanoTime());
        meters.sendFailure(ch.name(), f.retryable());
        LOG.warnf("attempt %d/%d to %s on %s failed: %s", attempt, max, b.userId(), ch,
            f.getMessage());
        // 4. Final failure or attempts used up: dead letter, and go on with the next.
        if (!f.retryable() || attempt >= max) {
          close(b, DeliveryStatus.DEAD_LETTERED, attempt, f.getMessage(), idempotencyKey);
          return;
        }
        sleep(backoff.after(attempt));
      }
    }
  }

  /**
   * The idempotency key of a new message: a digest of its entries' keys (noticeId|channel), the
   * same for every attempt; recorded with SENDING so a re-send after a crash reuses it.
   */
  static String idempotencyKey(Outbox.Batch<?> b) {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      for (Outbox.Entry<?> e : b.entries()) {
        sha.update(e.key().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return java.util.HexFormat.of().formatHex(sha.digest(), 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Records the end of a batch's delivery (and dead-letters it if it failed). */
  private void close(Outbox.Batch<Pending> b, DeliveryStatus status, int attempts, String error,
      String idempotencyKey) {
    if (status == DeliveryStatus.DEAD_LETTERED) {
      for (Outbox.Entry<Pending> e : b.entries()) {
        deadLetters.park(e.payload().raw(), DELIVERY, "channel " + b.channel() + ", "
            + attempts + " attempt(s): " + error);
      }
    }
    record(b, status, attempts, error, idempotencyKey);
    for (Outbox.Entry<Pending> e : b.entries()) {
      outbox.remove(e.key());
    }
    meters.delivery(b.channel().name(),
        status == DeliveryStatus.DELIVERED ? "delivered" : "dead_lettered", b.entries().size());
  }

  /** Writes the batch's delivery records with {@code status} and waits for the broker. */
  private void record(Outbox.Batch<Pending> b, DeliveryStatus status, int attempts, String error,
      String idempotencyKey) {
    String digestId = b.digest()
        ? "digest:" + b.entries().get(0).key() + "+" + (b.entries().size() - 1) : null;
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    List<NoticeDelivery> written = new ArrayList<>();
    for (Outbox.Entry<Pending> e : b.entries()) {
      NoticeDelivery d = NoticeDelivery.newBuilder()
          .setNoticeId(e.payload().notice().getNoticeId())
          .setChannel(b.channel().name())
          .setUserId(b.userId())
          .setStatus(status)
          .setAttempts(attempts)
          .setDigestId(digestId)
          .setReleasedAt(e.releaseAt())
          .setError(error == null ? "" : error)
          .setIdempotencyKey(idempotencyKey)
          .build();
      written.add(d);
      acks.add(producer.send(new ProducerRecord<>(DELIVERIES, e.key(), d)));
    }
    producer.flush();
    for (Future<RecordMetadata> a : acks) {
      try {
        a.get();
      } catch (Exception ex) {
        throw new IllegalStateException("could not record delivery: " + ex, ex);
      }
    }
    for (int i = 0; i < written.size(); i++) {
      deliveries.put(b.entries().get(i).key(), written.get(i));
    }
  }

  private void advance(Instant t) {
    if (t != null && t.isAfter(streamTime)) {
      streamTime = t;
    }
  }

  /** Advances the stream time and the facts' time (the join's clock). */
  private void advanceFacts(Instant t) {
    advance(t);
    if (t != null && t.isAfter(factTime)) {
      factTime = t;
    }
  }

  private Map<String, Object> stateConsumerConfig() {
    Map<String, Object> c = new HashMap<>(kafka);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "notifier-state-" + groupId);
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    return c;
  }

  private Map<String, Object> eventConsumerConfig() {
    Map<String, Object> c = new HashMap<>(kafka);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "notifier-events-" + groupId);
    return c;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(Math.max(0, d.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the worker and closes the producer. */
  @Override
  public synchronized void close() {
    running = false;
    if (thread != null) {
      try {
        thread.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(10));
    }
  }
}
