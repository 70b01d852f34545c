package io.tideline.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The {@link TopologyTestDriver} bootstrap every service's scenario driver needs: the streams
 * properties (an application id, a bootstrap address that is never dialled, a fresh state
 * directory) and raw byte topics for the topology's inputs and outputs. Why raw bytes: scenario
 * drivers encode with the real registry serdes themselves and also pipe malformed bytes to test
 * dead letters. One place instead of one copy per service driver.
 */
public final class TopologyDrivers {

  private TopologyDrivers() {}

  /** Streams properties for a test driver: {@code applicationId}, a fresh temp state dir. */
  public static Properties properties(String applicationId) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    try {
      p.put(StreamsConfig.STATE_DIR_CONFIG,
          Files.createTempDirectory(applicationId + "-ttd-").toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** A driver for {@code topology} with {@link #properties(String)}. */
  public static TopologyTestDriver start(Topology topology, String applicationId) {
    return new TopologyTestDriver(topology, properties(applicationId));
  }

  /** A raw (bytes, bytes) input topic for each of {@code topics}, by topic name. */
  public static Map<String, TestInputTopic<byte[], byte[]>> rawInputs(TopologyTestDriver driver,
      Collection<String> topics) {
    Map<String, TestInputTopic<byte[], byte[]>> inputs = new LinkedHashMap<>();
    for (String t : topics) {
      inputs.put(t, driver.createInputTopic(t, new ByteArraySerializer(),
          new ByteArraySerializer()));
    }
    return inputs;
  }

  /** A raw (bytes, bytes) output topic for each of {@code topics}, by topic name. */
  public static Map<String, TestOutputTopic<byte[], byte[]>> rawOutputs(TopologyTestDriver driver,
      Collection<String> topics) {
    Map<String, TestOutputTopic<byte[], byte[]>> outputs = new LinkedHashMap<>();
    for (String t : topics) {
      outputs.put(t, driver.createOutputTopic(t, new ByteArrayDeserializer(),
          new ByteArrayDeserializer()));
    }
    return outputs;
  }
}
