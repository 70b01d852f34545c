package io.tideline.quota;

import io.tideline.platform.TidelineConfig;
import io.tideline.platform.intake.IntakeConfig;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.quota.config.QuotaServiceConfig;
import io.tideline.quota.intake.IntakeMeters;
import io.tideline.quota.stream.QuotaTopology;
import io.tideline.core.pricing.DailySlotSchedule;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.streams.Topology;

/**
 * Wires the quota topology into Quarkus Kafka Streams: the typed config becomes a
 * {@link QuotaPolicy}, the bootstrap definition file is read once at start-up (a broken file fails
 * the start with its reasons, rather than running without quotas).
 */
@ApplicationScoped
public class QuotaStreams {

  /** The service's policy, one instance for the topology and the REST queries. */
  @Produces
  @Singleton
  QuotaPolicy policy(TidelineConfig tideline, QuotaServiceConfig config, IntakeConfig intake) {
    return new QuotaPolicy(tideline.service(), tideline.cluster(), config.quota(),
        config.idleConfig(), config.pricingConfig(), DailySlotSchedule.EXAMPLE,
        config.meteringInterval(), config.currency(),
        config.maxAheadOfClock().orElse(QuotaKernelConfig.MAX_AHEAD_OF_CLOCK),
        config.guaranteeReclaimRetry().orElse(QuotaKernelConfig.GUARANTEE_RECLAIM_RETRY),
        bootstrap(config.definitionFile()), intake.limits());
  }

  @Produces
  Topology topology(QuotaPolicy policy, AvroSerdes serdes, IntakeMeters meters,
      IntakeConfig intake) {
    return QuotaTopology.build(policy, serdes.valueSerdeConfig(), meters, intake.bounds());
  }

  /** Reads {@code classpath:NAME} or a file path. */
  static QuotaPolicy.BootstrapDefinition bootstrap(String location) {
    try {
      if (location.startsWith("classpath:")) {
        String name = location.substring("classpath:".length());
        try (InputStream in = Thread.currentThread().getContextClassLoader()
            .getResourceAsStream(name)) {
          if (in == null) {
            throw new IllegalStateException("quota definition " + location + " not found");
          }
          return new QuotaPolicy.BootstrapDefinition("file:" + location,
              new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
      }
      return new QuotaPolicy.BootstrapDefinition("file:" + location,
          Files.readString(Path.of(location)));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read quota definition " + location + ": " + e, e);
    }
  }
}
