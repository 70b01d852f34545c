package io.tideline.executor;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.MeterRegistry;
import io.tideline.events.Eviction;
import io.tideline.events.JobSubmitted;
import io.tideline.events.PlacementDecision;
import io.tideline.executor.intake.PodGangs;
import io.tideline.executor.kafka.Outputs;
import io.tideline.executor.kube.KubeActions;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.intake.EventChecks;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.RecordIntake;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jboss.logging.Logger;

/**
 * One executor replica: it campaigns for the cluster's Lease and, while it leads, runs the shared
 * informers (Tideline's pods, namespaces), the order consumer ({@code placement.decisions},
 * {@code evictions}) and the {@link Engine} on one actor thread. Losing the lease stops all of it
 * before another replica can act, so two replicas never enact at once; a pod already bound is
 * never bound again by the next leader (the API server refuses a second Binding, and the engine
 * checks the pod first).
 *
 * <p>Offsets of an order are committed only once the order is carried out (a PLACED whose pods
 * are bound, an eviction whose pods are gone): a new leader, or this one after a crash, reads every
 * order not yet carried out again and finishes it from what the API server shows.
 */
public final class ExecutorRuntime implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(ExecutorRuntime.class);
  private static final String JOB_INDEX = "tideline-job";

  private final KubernetesClient client;
  private final ExecutorSettings settings;
  private final String bootstrap;
  private final Map<String, Object> serdeConfig;
  private final Map<String, Object> kafkaExtra;
  private final ExecutorMeters meters;
  private final Clock clock;
  private final KubeActions kube;
  private final Duration resync;

  private LeaderElector elector;
  private CompletableFuture<?> election;
  private volatile Term term;
  private volatile boolean leading;

  /** Everything that runs while this replica leads. */
  private final class Term {
    final ScheduledExecutorService actor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "executor-actor-" + settings.identity());
      t.setDaemon(true);
      return t;
    });
    final Outputs out = new Outputs(bootstrap, serdeConfig, kafkaExtra, settings.service());
    /** The platform's one intake (ADR 0012): decoding, then every field bound and record rule. */
    final RecordIntake intake = new RecordIntake(AvroSerdes.valueDeserializer(serdeConfig),
        new EventValidator(settings.bounds()));
    SharedIndexInformer<Pod> podInformer;
    SharedIndexInformer<Namespace> nsInformer;
    Engine engine;
    Thread consumerThread;
    volatile boolean running = true;
    final Map<TopicPartition, ConcurrentSkipListSet<Long>> pending = new ConcurrentHashMap<>();
    final CountDownLatch stopped = new CountDownLatch(1);

    void start() throws Exception {
      Map<String, JobSubmitted> openJobs = OpenJobs.load(bootstrap, kafkaExtra, serdeConfig,
          intake, out, meters);
      LOG.infof("%s leads cluster %s: %d open jobs", settings.identity(), settings.cluster(),
          openJobs.size());
      nsInformer = client.namespaces().runnableInformer(resync.toMillis());
      nsInformer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
      podInformer = client.pods().inAnyNamespace()
          .withField("spec.schedulerName", settings.schedulerName())
          .runnableInformer(resync.toMillis());
      podInformer.addIndexers(Map.of(JOB_INDEX, p -> List.of(PodGangs.jobIdOf(p))));
      Engine.PodSource source = new Engine.PodSource() {
        @Override
        public List<Pod> podsOf(String jobId) {
          return new ArrayList<>(podInformer.getIndexer().byIndex(JOB_INDEX, jobId));
        }

        @Override
        public Map<String, String> namespaceLabels(String namespace) {
          Namespace n = nsInformer.getStore().getByKey(namespace);
          return n == null || n.getMetadata().getLabels() == null ? Map.of()
              : n.getMetadata().getLabels();
        }
      };
      engine = new Engine(settings, kube, out, clock, meters, source, openJobs);
      podInformer.addEventHandler(new ResourceEventHandler<>() {
        @Override
        public void onAdd(Pod pod) {
          act(() -> engine.podChanged(PodGangs.jobIdOf(pod), null));
        }

        @Override
        public void onUpdate(Pod before, Pod pod) {
          act(() -> engine.podChanged(PodGangs.jobIdOf(pod), null));
        }

        @Override
        public void onDelete(Pod pod, boolean unknownFinalState) {
          act(() -> engine.podChanged(PodGangs.jobIdOf(pod), pod));
        }
      });
      podInformer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
      actor.scheduleWithFixedDelay(() -> guarded(() -> engine.evictingJobs()
          .forEach(engine::retryEvictions)), 5, 5, TimeUnit.SECONDS);
      consumerThread = new Thread(this::consume, "executor-orders-" + settings.identity());
      consumerThread.setDaemon(true);
      consumerThread.start();
    }

    void act(Runnable r) {
      if (running) {
        actor.execute(() -> guarded(r));
      }
    }

    void guarded(Runnable r) {
      try {
        r.run();
      } catch (Engine.Aborted e) {
        LOG.infof("%s: %s", settings.identity(), e.getMessage());
      } catch (RuntimeException e) {
        if (running) {
          LOG.errorf(e, "executor step failed (the informer's next resync or the order's "
              + "redelivery tries again): %s", e.getMessage());
        }
      }
    }

    void consume() {
      Map<String, Object> p = new HashMap<>(kafkaExtra);
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, "executor-" + settings.cluster());
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.service() + "-" + settings.identity());
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
          new ByteArrayDeserializer())) {
        c.subscribe(List.of(TopicCatalogue.PLACEMENT_DECISIONS, TopicCatalogue.EVICTIONS));
        Map<TopicPartition, Long> next = new HashMap<>();
        Map<TopicPartition, Long> committed = new HashMap<>();
        while (running) {
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            ConcurrentSkipListSet<Long> open = pending.computeIfAbsent(tp,
                x -> new ConcurrentSkipListSet<>());
            if (open.contains(r.offset())) {
              continue; // redelivered while still under way here
            }
            open.add(r.offset());
            next.put(tp, r.offset() + 1);
            act(() -> handle(r, () -> open.remove(r.offset())));
          }
          Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
          for (var e : next.entrySet()) {
            ConcurrentSkipListSet<Long> open = pending.get(e.getKey());
            long upTo = open == null || open.isEmpty() ? e.getValue() : open.first();
            if (!Long.valueOf(upTo).equals(committed.get(e.getKey()))) {
              commit.put(e.getKey(), new OffsetAndMetadata(upTo));
            }
          }
          if (!commit.isEmpty() && running) {
            c.commitSync(commit);
            commit.forEach((tp, o) -> committed.put(tp, o.offset()));
          }
        }
      } catch (org.apache.kafka.common.errors.InterruptException e) {
        LOG.debug("order consumer interrupted");
      } catch (RuntimeException e) {
        if (running) {
          LOG.errorf(e, "order consumer stopped: %s", e.getMessage());
        }
      } finally {
        stopped.countDown();
      }
    }

    /**
     * One order record: read through the platform's {@link RecordIntake} like every other consumer
     * (a frame that is not our Avro, a schema this executor cannot read, or a record outside the
     * bounds is dead-lettered on {@code <topic>.dlq} with the reason, and the next order goes on);
     * an order for another cluster is not ours.
     */
    void handle(ConsumerRecord<byte[], byte[]> r, Runnable done) {
      // an order placement did not write is refused unread (ADR 0029): a forged eviction or
      // binding never reaches the API server
      String forged = Provenance.DEFAULT.refusal(r.topic(), r.headers());
      if (forged != null) {
        dead(r, DeadLetters.PROVENANCE, forged, done);
        return;
      }
      boolean decisions = r.topic().equals(TopicCatalogue.PLACEMENT_DECISIONS);
      RecordIntake.Outcome o = intake.read(r.topic(), r.key(), r.value(), r.timestamp(),
          decisions ? PlacementDecision.class : Eviction.class);
      if (o instanceof RecordIntake.Refused refused) {
        dead(r, refused.errorClass(), refused.reason(), done);
        return;
      }
      if (!(o instanceof RecordIntake.Accepted accepted)) {
        // a tombstone: neither order topic deletes anything, so the intake refuses them first
        dead(r, DeadLetters.VALIDATION, "empty record (null value): " + r.topic()
            + " has no deletions", done);
        return;
      }
      Object v = accepted.event();
      String cluster = v instanceof Eviction e ? e.getCluster()
          : EventChecks.clusterOf(v, settings.cluster());
      if (!settings.cluster().equals(cluster)) {
        done.run(); // another cluster's order
      } else if (decisions) {
        engine.decision(new Engine.Order<>((PlacementDecision) v, done));
      } else {
        engine.eviction(new Engine.Order<>((Eviction) v, done));
      }
    }

    void dead(ConsumerRecord<byte[], byte[]> r, String errorClass, String reason, Runnable done) {
      LOG.warnf("dead-lettering %s-%d@%d: %s", r.topic(), r.partition(), r.offset(), reason);
      out.deadRecord(r.topic(), r.partition(), r.offset(), r.key(), r.value(), errorClass,
          reason, r.timestamp());
      meters.deadLetter(r.topic() + ".dlq");
      done.run();
    }

    void stop() {
      running = false;
      actor.shutdownNow();
      try {
        actor.awaitTermination(30, TimeUnit.SECONDS);
        stopped.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (podInformer != null) {
        podInformer.stop();
      }
      if (nsInformer != null) {
        nsInformer.stop();
      }
      out.close();
    }
  }

  /**
   * @param kube the API-server writes (tests wrap it); its client is the one the informers use
   * @param kafkaExtra extra Kafka client settings (security, …) for every client
   */
  public ExecutorRuntime(KubeActions kube, ExecutorSettings settings, String bootstrap,
      Map<String, Object> serdeConfig, Map<String, Object> kafkaExtra, MeterRegistry registry,
      Clock clock, Duration resync) {
    this.kube = kube;
    this.client = kube.client();
    this.settings = settings;
    this.bootstrap = bootstrap;
    this.serdeConfig = serdeConfig;
    this.kafkaExtra = kafkaExtra;
    this.meters = new ExecutorMeters(registry);
    this.clock = clock;
    this.resync = resync;
  }

  /** Starts campaigning for the lease; enacts only while it holds it. */
  public synchronized void start() {
    elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
        .withName("tideline-executor-" + settings.cluster())
        .withLock(new LeaseLock(settings.leaseNamespace(), settings.leaseName(),
            settings.identity()))
        .withLeaseDuration(settings.leaseDuration())
        .withRenewDeadline(settings.renewDeadline())
        .withRetryPeriod(settings.retryPeriod())
        .withReleaseOnCancel(false)
        .withLeaderCallbacks(new LeaderCallbacks(this::lead, this::stepDown,
            leader -> LOG.infof("executor leader of %s: %s", settings.cluster(), leader)))
        .build()).build();
    election = elector.start();
  }

  private void lead() {
    Term t = new Term();
    term = t;
    try {
      t.start();
      leading = true;
    } catch (Exception e) {
      LOG.errorf(e, "could not start leading: %s", e.getMessage());
      t.stop();
      term = null;
    }
  }

  private synchronized void stepDown() {
    leading = false;
    Term t = term;
    term = null;
    if (t != null) {
      LOG.infof("%s stops leading cluster %s", settings.identity(), settings.cluster());
      t.stop();
    }
  }

  /** Whether this replica leads and runs. */
  public boolean leading() {
    return leading;
  }

  /** The meters (tests read the bind counters). */
  public ExecutorMeters meters() {
    return meters;
  }

  /** Stops at once, keeping the lease until it expires: what a crash looks like to the others. */
  public void crash() {
    if (election != null) {
      election.cancel(true);
    }
    stepDown();
  }

  /** Stops and hands the lease over. */
  @Override
  public void close() {
    crash();
    if (elector != null) {
      try {
        elector.release();
      } catch (RuntimeException e) {
        LOG.debugf("lease not released: %s", e.getMessage());
      }
    }
  }
}
