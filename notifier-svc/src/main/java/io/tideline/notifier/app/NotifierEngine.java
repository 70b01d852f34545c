package io.tideline.notifier.app;

import io.tideline.events.ClockTick;
import io.tideline.events.DeliveryStatus;
import io.tideline.events.Eviction;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.Notice;
import io.tideline.events.NoticeDelivery;
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
import io.tideline.notifier.compose.QuotaLink;
import io.tideline.notifier.compose.QuotaRequest;
import io.tideline.notifier.compose.TroughSlot;
import io.tideline.notifier.delivery.Backoff;
import io.tideline.notifier.delivery.Channel;
import io.tideline.notifier.delivery.DigestWindows;
import io.tideline.notifier.delivery.Outbox;
import io.tideline.notifier.delivery.RateLimiter;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.topics.TopicCatalogue;
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
 * The notifier's one worker thread: composes notices from decisions, publishes them on
 * {@code notices}, and delivers them on each user's channels exactly once (P7, O3).
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
 *   <li>A delivery record is written and acknowledged by the broker right after each send. The one
 *       window left is a crash between the send and that acknowledgement, where a notice may go
 *       out twice; Slack webhooks and SMTP have no idempotency key to close it.
 * </ol>
 *
 * <p>Input offsets are committed only after the notices they produced are on the broker. Time is
 * event time: the stream time is the largest event time seen (decisions, lifecycle facts,
 * evictions, clock ticks, notices); quiet hours and digest windows release against it.
 */
public final class NotifierEngine implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(NotifierEngine.class);

  static final String DELIVERY = "DELIVERY";
  static final List<String> STATE_TOPICS = List.of(TopicCatalogue.PLACEMENT_QUEUE,
      TopicCatalogue.FORECAST_SLOTS, "notify.directory", TopicCatalogue.JOBS_SUBMITTED,
      TopicCatalogue.NOTICES, "notices.deliveries");
  static final List<String> EVENT_TOPICS = List.of(TopicCatalogue.PREEMPTION_DECISIONS,
      TopicCatalogue.JOBS_LIFECYCLE, TopicCatalogue.EVICTIONS, TopicCatalogue.CLUSTER_CLOCK);

  /** A published notice waiting for delivery, with its record for a dead letter. */
  record Pending(Notice notice, ConsumerRecord<byte[], byte[]> raw) {}

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
  private final Set<String> delivered = new HashSet<>();
  private final Outbox<Pending> outbox = new Outbox<>();
  private final DigestWindows windows;
  private final Map<Channel, RateLimiter> limiters = new EnumMap<>(Channel.class);
  private final Backoff backoff;
  private final NoticeComposer.Context context;

  private KafkaProducer<String, Object> producer;
  private Deserializer<Object> avro;
  private volatile Instant streamTime = Instant.EPOCH;
  private volatile boolean running;
  private volatile boolean restored;
  private Thread thread;

  public NotifierEngine(NotifierConfig config, String groupId, Map<String, Object> kafka,
      Map<String, Object> serde, Directory directory, NoticeRenderer renderer,
      Map<Channel, Sender> senders, DeadLetters deadLetters, NotifierMeters meters) {
    this.config = config;
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
    @SuppressWarnings("unchecked")
    Serializer<Object> valueSerializer = io.tideline.platform.serde.AvroSerdes.valueSerializer(serde);
    producer = new KafkaProducer<>(p, new StringSerializer(), valueSerializer);
    avro = io.tideline.platform.serde.AvroSerdes.valueDeserializer(serde);
    running = true;
    thread = new Thread(this::run, "notifier-engine-" + groupId);
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether the start-up restore is done (deliveries, notices, directory, queue read). */
  public boolean restored() {
    return restored;
  }

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

  private void run() {
    try (KafkaConsumer<byte[], byte[]> state = new KafkaConsumer<>(stateConsumerConfig(),
            new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaConsumer<byte[], byte[]> events = new KafkaConsumer<>(eventConsumerConfig(),
            new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      restore(state);
      events.subscribe(EVENT_TOPICS);
      while (running) {
        try {
          // 1. State first (queue, directory, forecast, notices, deliveries).
          for (ConsumerRecord<byte[], byte[]> r : state.poll(Duration.ofMillis(10))) {
            applyState(r, null);
          }
          // 2. Decisions and facts: compose, publish, then commit their offsets.
          var batch = events.poll(config.pollTimeout());
          if (!batch.isEmpty()) {
            for (ConsumerRecord<byte[], byte[]> r : batch) {
              handleEvent(r);
            }
            producer.flush();
            events.commitSync();
          }
          // 3. Deliver what is due at the stream time.
          for (Outbox.Batch<Pending> b : outbox.due(streamTime)) {
            deliver(b);
          }
        } catch (org.apache.kafka.common.errors.InterruptException e) {
          break;
        } catch (RuntimeException e) {
          LOG.errorf(e, "notifier loop failed, going on: %s", e.getMessage());
          sleep(Duration.ofMillis(500));
        }
      }
    } catch (RuntimeException e) {
      LOG.errorf(e, "notifier engine stopped: %s", e.getMessage());
    }
  }

  /** Reads the state topics from the beginning to their current end. */
  private void restore(KafkaConsumer<byte[], byte[]> state) {
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
      for (ConsumerRecord<byte[], byte[]> r : state.poll(Duration.ofMillis(200))) {
        applyState(r, buffered);
      }
    }
    // 2. Only now, with directory and deliveries complete, queue the notices not yet delivered.
    buffered.forEach(this::enqueue);
    restored = true;
    LOG.infof("notifier %s restored: %d notices known, %d deliveries, %d waiting", groupId,
        knownNotices.size(), delivered.size(), outbox.size());
  }

  private void applyState(ConsumerRecord<byte[], byte[]> r, List<Pending> buffer) {
    String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
    Object v;
    try {
      v = r.value() == null ? null : avro.deserialize(r.topic(), r.value());
    } catch (RuntimeException e) {
      LOG.warnf("skipping undecodable %s-%d@%d: %s", r.topic(), r.partition(), r.offset(), e);
      meters.input(r.topic(), "skipped");
      return;
    }
    switch (r.topic()) {
      case TopicCatalogue.PLACEMENT_QUEUE -> {
        if (v == null) {
          if (key != null) {
            queue.remove(key);
          }
        } else {
          QueuePosition q = (QueuePosition) v;
          queue.put(q.getJobId(), q);
        }
      }
      case TopicCatalogue.FORECAST_SLOTS -> {
        if (v instanceof SlotForecast f && (f.getSlotClass() == SlotClass.TROUGH
            || f.getSlotClass() == SlotClass.DEEP_TROUGH)) {
          troughs.add(new TroughSlot(f.getSlotStart(), f.getSlotEnd()));
        }
      }
      case "notify.directory" -> {
        if (v == null) {
          if (key != null) {
            directory.put(key, null);
          }
        } else {
          NotifyPreference p = (NotifyPreference) v;
          directory.put(p.getUserId(), p);
        }
      }
      case TopicCatalogue.JOBS_SUBMITTED -> {
        if (v instanceof JobSubmitted j) {
          owners.put(j.getJobId(), new NoticeComposer.Owner(j.getUser(), j.getTenant()));
          directory.contacts(j.getUser(), j.getContacts());
        }
      }
      case TopicCatalogue.NOTICES -> {
        if (v instanceof Notice n) {
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
      }
      case "notices.deliveries" -> {
        if (v instanceof NoticeDelivery d) {
          String k = d.getNoticeId() + "|" + d.getChannel();
          delivered.add(k);
          outbox.remove(k);
        }
      }
      default -> LOG.debugf("ignoring %s", r.topic());
    }
  }

  private void handleEvent(ConsumerRecord<byte[], byte[]> r) {
    Object v;
    try {
      v = avro.deserialize(r.topic(), r.value());
      if (v == null) {
        throw new IllegalArgumentException("empty value");
      }
    } catch (RuntimeException e) {
      refuse(r, DeadLetters.DESERIALIZATION, "not a readable " + r.topic() + " record: " + e.getMessage());
      return;
    }
    if (v instanceof PreemptionDecision d) {
      advance(d.getDecidedAt());
      for (Victim victim : d.getVictims()) {
        if (victim.getUser() == null || victim.getUser().isBlank()) {
          refuse(r, DeadLetters.VALIDATION, "decision " + d.getDecisionId() + ": victim "
              + victim.getJobId() + " has no owner (victims[].user is empty)");
          return;
        }
      }
      d.getVictims().forEach(victim -> owners.put(victim.getJobId(),
          new NoticeComposer.Owner(victim.getUser(), victim.getTenant())));
      NoticeComposer.preempted(d, context).forEach(this::publish);
    } else if (v instanceof JobLifecycle l) {
      advance(l.getOccurredAt());
      if (l.getType() == LifecycleType.RESUMED) {
        NoticeComposer.Owner owner = owner(r, l.getJobId());
        if (owner != null) {
          publish(NoticeComposer.resumed(l, owner, context));
        }
        return;
      }
    } else if (v instanceof Eviction e) {
      advance(e.getIssuedAt());
      switch (e.getKind()) {
        case RECLAIM, SHRINK -> {
          NoticeComposer.Owner owner = owner(r, e.getJobId());
          if (owner != null) {
            publish(NoticeComposer.evicted(e, owner, context));
          }
          return;
        }
        default -> {
          // PREEMPT is explained from the preemption decision; MIGRATE is not the owner's concern.
        }
      }
    } else if (v instanceof ClockTick t) {
      advance(t.getTime());
    }
    meters.input(r.topic(), "accepted");
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
    // 2. One entry per channel, unless that channel already has it.
    for (Channel ch : route.channels()) {
      String key = n.getNoticeId() + "|" + ch;
      if (delivered.contains(key)) {
        meters.delivery(ch.name(), "already_delivered", 1);
        continue;
      }
      outbox.add(new Outbox.Entry<>(key, n.getUserId(), ch, release, n.getCreatedAt(), digestible,
          p));
    }
  }

  private void deliver(Outbox.Batch<Pending> b) {
    Route route = directory.resolve(b.userId());
    Channel ch = b.channel();
    String dest = route.destination(ch);
    if (dest == null) {
      close(b, DeliveryStatus.DEAD_LETTERED, 0, "no " + ch + " address for " + b.userId());
      return;
    }
    NoticeRenderer.Rendered message;
    try {
      message = renderer.render(b.entries().stream().map(e -> e.payload().notice()).toList(), route);
    } catch (RuntimeException e) {
      close(b, DeliveryStatus.DEAD_LETTERED, 0, "rendering failed: " + e.getMessage());
      return;
    }
    RateLimiter limiter = limiters.get(ch);
    int max = Math.max(1, config.retry().maxAttempts());
    for (int attempt = 1; ; attempt++) {
      // 1. Respect the channel's rate limit for this destination.
      long wait = limiter.waitNanos(dest, System.nanoTime());
      if (wait > 0) {
        sleep(Duration.ofNanos(wait));
      }
      try {
        senders.get(ch).send(route, message);
        limiter.sent(dest, System.nanoTime());
        // 2. Sent: record it before anything else.
        close(b, DeliveryStatus.DELIVERED, attempt, "");
        meters.message(ch.name(), b.digest());
        return;
      } catch (SendFailure f) {
        limiter.sent(dest, System.nanoTime());
        meters.sendFailure(ch.name(), f.retryable());
        LOG.warnf("attempt %d/%d to %s on %s failed: %s", attempt, max, b.userId(), ch,
            f.getMessage());
        // 3. Final failure or attempts used up: dead letter, and go on with the next.
        if (!f.retryable() || attempt >= max) {
          close(b, DeliveryStatus.DEAD_LETTERED, attempt, f.getMessage());
          return;
        }
        sleep(backoff.after(attempt));
      }
    }
  }

  /** Records the end of a batch's delivery (and dead-letters it if it failed). */
  private void close(Outbox.Batch<Pending> b, DeliveryStatus status, int attempts, String error) {
    String digestId = b.digest()
        ? "digest:" + b.entries().get(0).key() + "+" + (b.entries().size() - 1) : null;
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    for (Outbox.Entry<Pending> e : b.entries()) {
      if (status == DeliveryStatus.DEAD_LETTERED) {
        deadLetters.park(e.payload().raw(), DELIVERY, "channel " + b.channel() + ", "
            + attempts + " attempt(s): " + error);
      }
      NoticeDelivery d = NoticeDelivery.newBuilder()
          .setNoticeId(e.payload().notice().getNoticeId())
          .setChannel(b.channel().name())
          .setUserId(b.userId())
          .setStatus(status)
          .setAttempts(attempts)
          .setDigestId(digestId)
          .setReleasedAt(e.releaseAt())
          .setError(error)
          .build();
      acks.add(producer.send(new ProducerRecord<>("notices.deliveries", e.key(), d)));
    }
    producer.flush();
    for (Future<RecordMetadata> a : acks) {
      try {
        a.get();
      } catch (Exception ex) {
        throw new IllegalStateException("could not record delivery: " + ex, ex);
      }
    }
    for (Outbox.Entry<Pending> e : b.entries()) {
      delivered.add(e.key());
      outbox.remove(e.key());
    }
    meters.delivery(b.channel().name(),
        status == DeliveryStatus.DELIVERED ? "delivered" : "dead_lettered", b.entries().size());
  }

  private void advance(Instant t) {
    if (t != null && t.isAfter(streamTime)) {
      streamTime = t;
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
