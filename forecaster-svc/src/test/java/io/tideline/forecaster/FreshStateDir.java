package io.tideline.forecaster;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;

/**
 * A new Kafka Streams state directory under target/ for each test application: state left by an
 * earlier run would be restored against a fresh broker.
 */
public class FreshStateDir implements QuarkusTestResourceLifecycleManager {

  @Override
  public Map<String, String> start() {
    try {
      return Map.of("kafka-streams.state.dir",
          Files.createTempDirectory("forecaster-state-").toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void stop() {}
}
