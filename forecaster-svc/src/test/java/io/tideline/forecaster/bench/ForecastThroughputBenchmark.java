package io.tideline.forecaster.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ForecastMeters;
import io.tideline.forecaster.topology.ForecastSerdes;
import io.tideline.forecaster.topology.ForecastTopology;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Throughput of the forecast topology on a real local broker (the testkit's in-JVM KRaft broker
 * and a real registry), as a ratio to a plain {@code KafkaConsumer} reading the same
 * {@code gpu.telemetry} records in the same run. Not a test (no *Test name, not run by surefire);
 * run it by hand:
 *
 * <pre>
 * ./mvnw -B -ntp -pl forecaster-svc test-compile
 * cd forecaster-svc &amp;&amp; java -Xmx1g -cp "target/test-classes:target/classes:../schemas/target/classes:\
 * ../platform/target/classes:$(../mvnw -q dependency:build-classpath -Dmdep.includeScope=test \
 * -Dmdep.outputFile=/dev/stdout)" io.tideline.forecaster.bench.ForecastThroughputBenchmark \
 * [samples, default 300000] [stream threads, default 1]
 * </pre>
 *
 * <p>With {@code -Dbench.batches=true} (ADR 0040) the same samples are published twice: one
 * {@code GpuSample} per record on a topic of their own, and one {@code GpuSampleBatch} per node
 * (8 GPUs) on {@code gpu.telemetry.batches}, which is what the topology then reads; every figure
 * is in GPU-samples/s (a batch counts its GPUs), and the topology's ratio is given to the decoding
 * consumer of batches and to the decoding consumer of single samples.
 *
 * <p>What is timed, for each reader, is from its first record to its last (start-up and group
 * joins excluded): (1) a plain consumer of raw bytes, (2) a plain consumer that also decodes each
 * sample through the registry deserializer (the least work any reader of the topic does),
 * (3) the topology with exactly-once v2 and RocksDB stores, counted by the samples its telemetry
 * stage has handled.
 */
public final class ForecastThroughputBenchmark {

  private static final int GPUS = 2_000;
  private static final int SERVICES = 20;

  private ForecastThroughputBenchmark() {}

  public static void main(String[] args) throws Exception {
    // Logging as the service has it (Quarkus: JBoss LogManager, Kafka at WARN). Unconfigured, the
    // JBoss slf4j binding reports TRACE enabled and Kafka formats a trace line per record.
    System.setProperty("java.util.logging.manager", "org.jboss.logmanager.LogManager");
    for (String category : new String[] {"", "org.apache.kafka", "kafka", "io.apicurio"}) {
      java.util.logging.Logger.getLogger(category).setLevel(java.util.logging.Level.WARNING);
    }
    // Without a configuration the log manager has no handler: show warnings and errors.
    java.util.logging.ConsoleHandler console = new java.util.logging.ConsoleHandler();
    console.setLevel(java.util.logging.Level.ALL);
    java.util.logging.Logger.getLogger("").addHandler(console);
    if (Boolean.getBoolean("bench.streams.info")) {
      java.util.logging.Logger.getLogger("org.apache.kafka.streams")
          .setLevel(java.util.logging.Level.INFO);
    }
    int samples = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    try (TidelineInfra infra = TidelineInfra.start()) {
      String bootstrap = infra.broker().bootstrapServers();
      infra.broker().createTopics(TopicCatalogue.all().stream()
          .map(t -> t.name() + ":" + t.partitions()).toArray(String[]::new));
      infra.broker().createTopics(ForecastTopology.FORECAST_SLOTMAP);
      keepForever(bootstrap, TopicCatalogue.GPU_TELEMETRY);
      Map<String, Object> serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
      if (Boolean.getBoolean("bench.batches")) {
        batchesMain(infra, bootstrap, serde, samples, threads);
        System.exit(0);
      }
      produce(bootstrap, serde, samples);

      double raw = consume(bootstrap, samples, null);
      double decoded = consume(bootstrap, samples, AvroSerdes.valueDeserializer(serde));
      double noop = Boolean.getBoolean("bench.noop")
          ? noopStreams(bootstrap, samples, threads) : Double.NaN;
      double streams = streams(bootstrap, serde, samples, threads);
      System.out.printf(Locale.ROOT, "%n=== forecaster throughput, %d samples (%d GPUs, %d "
              + "services, 6 partitions), in-JVM broker ===%n", samples, GPUS, SERVICES);
      System.out.printf(Locale.ROOT, "plain consumer, raw bytes      : %,10.0f samples/s%n", raw);
      System.out.printf(Locale.ROOT, "plain consumer, Avro decoded   : %,10.0f samples/s%n",
          decoded);
      if (!Double.isNaN(noop)) {
        System.out.printf(Locale.ROOT, "no-op Streams app (EOS v2, bytes): %,10.0f samples/s "
            + "(%.2f of raw)%n", noop, noop / raw);
      }
      System.out.printf(Locale.ROOT, "forecast topology (EOS v2, %d thread%s): %,10.0f samples/s%n",
          threads, threads == 1 ? "" : "s", streams);
      System.out.printf(Locale.ROOT, "ratio topology / raw consumer  : %.2f%n", streams / raw);
      System.out.printf(Locale.ROOT, "ratio topology / decoding cons.: %.2f%n", streams / decoded);
    }
    System.exit(0);
  }

  /** Single samples on their own topic (for the consumers), the same as batches of a node. */
  static final String SAMPLES_TOPIC = "bench.gpu.telemetry.samples";
  static final int GPUS_PER_NODE = 8;

  private static void batchesMain(TidelineInfra infra, String bootstrap,
      Map<String, Object> serde, int samples, int threads) throws Exception {
    infra.broker().createTopics(SAMPLES_TOPIC + ":6");
    keepForever(bootstrap, SAMPLES_TOPIC);
    keepForever(bootstrap, TopicCatalogue.GPU_TELEMETRY_BATCHES);
    int scrapes = samples / GPUS;
    samples = scrapes * GPUS; // whole scrapes of the fleet
    produceBoth(bootstrap, serde, scrapes);
    int batches = samples / GPUS_PER_NODE;
    double rawSamples = consume(bootstrap, SAMPLES_TOPIC, samples, 1, null);
    double decodedSamples = consume(bootstrap, SAMPLES_TOPIC, samples, 1,
        AvroSerdes.valueDeserializer(serde));
    double rawBatches = consume(bootstrap, TopicCatalogue.GPU_TELEMETRY_BATCHES, batches,
        GPUS_PER_NODE, null);
    double decodedBatches = consume(bootstrap, TopicCatalogue.GPU_TELEMETRY_BATCHES, batches,
        GPUS_PER_NODE, AvroSerdes.valueDeserializer(serde));
    double streams = streams(bootstrap, serde, samples, threads);
    System.out.printf(Locale.ROOT, "%n=== forecaster throughput on batches, %d GPU-samples (%d GPUs"
        + " on %d-GPU nodes, %d services, 6 partitions), in-JVM broker ===%n", samples, GPUS,
        GPUS_PER_NODE, SERVICES);
    System.out.printf(Locale.ROOT, "plain consumer, raw bytes, samples    : %,10.0f GPU-samples/s%n",
        rawSamples);
    System.out.printf(Locale.ROOT, "plain consumer, Avro decoded, samples : %,10.0f GPU-samples/s%n",
        decodedSamples);
    System.out.printf(Locale.ROOT, "plain consumer, raw bytes, batches    : %,10.0f GPU-samples/s%n",
        rawBatches);
    System.out.printf(Locale.ROOT, "plain consumer, Avro decoded, batches : %,10.0f GPU-samples/s%n",
        decodedBatches);
    System.out.printf(Locale.ROOT, "forecast topology on batches (EOS v2, %d thread%s): %,10.0f "
        + "GPU-samples/s%n", threads, threads == 1 ? "" : "s", streams);
    System.out.printf(Locale.ROOT, "ratio topology / decoding consumer of batches : %.2f%n",
        streams / decodedBatches);
    System.out.printf(Locale.ROOT, "ratio topology / decoding consumer of samples : %.2f%n",
        streams / decodedSamples);
  }

  /**
   * {@code scrapes} scrapes of the fleet every 10 s of event time, each sample on
   * {@link #SAMPLES_TOPIC} and each node's 8 as one batch on {@code gpu.telemetry.batches}.
   */
  private static void produceBoth(String bootstrap, Map<String, Object> serde, int scrapes) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    Instant start = Instant.parse("2026-11-10T00:00:00Z");
    try (KafkaProducer<byte[], Object> producer = new KafkaProducer<>(p,
        new ByteArraySerializer(), AvroSerdes.valueSerializer(serde))) {
      for (int k = 0; k < scrapes; k++) {
        Instant at = start.plusSeconds(10L * k);
        List<GpuSample> scrape = new java.util.ArrayList<>(GPUS);
        for (int gpu = 0; gpu < GPUS; gpu++) {
          scrape.add(sample(gpu, at));
        }
        for (GpuSample s : scrape) {
          producer.send(new ProducerRecord<>(SAMPLES_TOPIC, null, at.toEpochMilli(),
              s.getGpuId().getBytes(StandardCharsets.UTF_8), s));
        }
        for (GpuSampleBatch b : SampleBatches.ofScrape(scrape, GPUS_PER_NODE)) {
          producer.send(new ProducerRecord<>(TopicCatalogue.GPU_TELEMETRY_BATCHES, null,
              at.toEpochMilli(), b.getNodeId().getBytes(StandardCharsets.UTF_8), b));
        }
      }
      producer.flush();
    }
  }

  private static GpuSample sample(int gpu, Instant at) {
    String service = gpu % 10 == 0 ? null : "svc-" + (gpu % SERVICES);
    return GpuSample.newBuilder().setGpuId("gpu-" + gpu).setCluster("default")
        .setNodeId("node-" + gpu / GPUS_PER_NODE).setGpuIndex(gpu % GPUS_PER_NODE)
        .setSampledAt(at).setState(SampleState.OK).setUtilizationPct(60.0)
        .setServiceId(service).setJobId(service == null ? null : service + "-pod-" + gpu)
        .setSource(SampleSource.SIMULATOR).build();
  }

  /**
   * The samples are stamped 2026-11-10 (event time of the scenario): older than the default
   * 7-day retention, so the broker's retention check (every 5 min) would delete them before
   * the topology has read them and it would wait for records that are gone.
   */
  private static void keepForever(String bootstrap, String topic) throws Exception {
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
        Map.of("bootstrap.servers", bootstrap))) {
      var resource = new org.apache.kafka.common.config.ConfigResource(
          org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
      admin.incrementalAlterConfigs(Map.of(resource, List.of(
          new org.apache.kafka.clients.admin.AlterConfigOp(
              new org.apache.kafka.clients.admin.ConfigEntry("retention.ms", "-1"),
              org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
    }
  }

  /** Samples every 10 s of event time for every GPU; a tenth of the GPUs idle. */
  private static void produce(String bootstrap, Map<String, Object> serde, int samples) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    Instant start = Instant.parse("2026-11-10T00:00:00Z");
    try (KafkaProducer<byte[], GpuSample> producer = new KafkaProducer<>(p,
        new ByteArraySerializer(), AvroSerdes.valueSerializer(serde))) {
      for (int i = 0; i < samples; i++) {
        int gpu = i % GPUS;
        Instant at = start.plusSeconds(10L * (i / GPUS));
        String service = gpu % 10 == 0 ? null : "svc-" + (gpu % SERVICES);
        String gpuId = "gpu-" + gpu;
        GpuSample s = GpuSample.newBuilder().setGpuId(gpuId).setCluster("default")
            .setNodeId("node-" + gpu / 8).setGpuIndex(gpu % 8).setSampledAt(at)
            .setState(SampleState.OK).setUtilizationPct(60.0).setServiceId(service)
            .setJobId(service == null ? null : service + "-pod-" + gpu)
            .setSource(SampleSource.SIMULATOR).build();
        producer.send(new ProducerRecord<>(TopicCatalogue.GPU_TELEMETRY, null,
            at.toEpochMilli(), gpuId.getBytes(StandardCharsets.UTF_8), s));
      }
      producer.flush();
    }
  }

  private static double consume(String bootstrap, int samples, Deserializer<Object> decoder) {
    return consume(bootstrap, TopicCatalogue.GPU_TELEMETRY, samples, 1, decoder);
  }

  /**
   * Reads {@code count} records of {@code topic} and returns GPU-samples/s, each record counting
   * {@code perRecord} GPU-samples.
   */
  private static double consume(String bootstrap, String topic, int count, int perRecord,
      Deserializer<Object> decoder) {
    int samples = count;
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("bench-consumer"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p,
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long first = 0;
      long n = 0;
      long sink = 0;
      while (n < samples) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        if (!records.isEmpty() && first == 0) {
          first = System.nanoTime();
        }
        for (var r : records) {
          sink += decoder == null ? r.value().length
              : decoder.deserialize(r.topic(), r.headers(), r.value()).hashCode();
          n++;
        }
      }
      long elapsed = System.nanoTime() - first;
      if (sink == 42) {
        System.out.print("");
      }
      return n * perRecord * 1e9 / elapsed;
    }
  }

  /**
   * The floor of any Streams app on this topic: the same EOS v2 settings, a processor that only
   * counts the raw records (no decoding, no state). What the topology can reach at best.
   */
  private static double noopStreams(String bootstrap, int samples, int threads)
      throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, KafkaBroker.unique("noop-bench"));
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("noop-bench-").toString());
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    java.util.concurrent.atomic.LongAdder count = new java.util.concurrent.atomic.LongAdder();
    org.apache.kafka.streams.StreamsBuilder builder = new org.apache.kafka.streams.StreamsBuilder();
    builder.stream(TopicCatalogue.GPU_TELEMETRY, org.apache.kafka.streams.kstream.Consumed.with(
            org.apache.kafka.common.serialization.Serdes.ByteArray(),
            org.apache.kafka.common.serialization.Serdes.ByteArray()))
        .process(() -> new org.apache.kafka.streams.processor.api.Processor<byte[], byte[],
            Void, Void>() {
          @Override
          public void process(org.apache.kafka.streams.processor.api.Record<byte[], byte[]> r) {
            count.increment();
          }
        });
    try (KafkaStreams streams = new KafkaStreams(builder.build(), p)) {
      streams.start();
      long first = 0;
      while (count.sum() < samples) {
        if (count.sum() > 0 && first == 0) {
          first = System.nanoTime();
        }
        Thread.sleep(5);
      }
      long elapsed = System.nanoTime() - first;
      streams.close(Duration.ofSeconds(30));
      return count.sum() * 1e9 / elapsed;
    }
  }

  private static double streams(String bootstrap, Map<String, Object> serde, int samples,
      int threads) throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, KafkaBroker.unique("forecaster-bench"));
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000); // as in application.properties
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
    p.put(StreamsConfig.STATE_DIR_CONFIG,
        Files.createTempDirectory("forecaster-bench-").toString());
    p.put(StreamsConfig.producerPrefix("max.in.flight.requests.per.connection"), 1);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // Optional tuning from system properties (e.g. -Dbench.max.poll.records=5000), to compare.
    for (String name : new String[] {"max.poll.records", "fetch.min.bytes",
        "fetch.max.wait.ms"}) {
      String v = System.getProperty("bench." + name);
      if (v != null) {
        p.put(StreamsConfig.consumerPrefix(name), v);
      }
    }
    String buffered = System.getProperty("bench.buffered.records.per.partition");
    if (buffered != null) {
      p.put("buffered.records.per.partition", buffered);
    }
    ForecastSettings settings = ForecastSettings.defaults("default", "forecaster-bench",
        ZoneOffset.UTC);
    try (KafkaStreams streams = new KafkaStreams(ForecastTopology.build(settings,
        ForecastSerdes.fromRegistry(serde), new ForecastMeters(registry)), p)) {
      streams.setUncaughtExceptionHandler(e -> {
        e.printStackTrace();
        return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler
            .StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
      });
      streams.start();
      long first = 0;
      double handled = 0;
      long lastReport = System.nanoTime();
      while (handled < samples) {
        if (System.nanoTime() - lastReport > 30_000_000_000L) {
          System.out.printf(Locale.ROOT, "  topology: %,.0f samples handled, state %s%n", handled,
              streams.state());
          lastReport = System.nanoTime();
        }
        if (!streams.state().isRunningOrRebalancing()
            && streams.state() != KafkaStreams.State.CREATED) {
          throw new IllegalStateException("the topology stopped: " + streams.state());
        }
        handled = registry.find("tideline.forecast.samples").counters().stream()
            .mapToDouble(c -> c.count()).sum();
        if (handled > 0 && first == 0) {
          first = System.nanoTime();
        }
        Thread.sleep(5);
      }
      long elapsed = System.nanoTime() - first;
      streams.close(Duration.ofSeconds(30));
      return handled * 1e9 / elapsed;
    }
  }
}
