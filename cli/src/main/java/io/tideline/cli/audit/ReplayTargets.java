package io.tideline.cli.audit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.placement.ledger.PlacementMeters;
import io.tideline.placement.ledger.PlacementTopology;
import io.tideline.platform.ledger.LedgerStores;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.InputBounds;
import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.preemption.view.PreemptionTopology;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.quota.stream.QuotaListener;
import io.tideline.quota.stream.QuotaTopics;
import io.tideline.quota.stream.QuotaTopology;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The ledgers an audit replays, built with the services' documented default policies (the same
 * values the services run with unless configured otherwise; a replay under another policy says so
 * through the decisions' policy versions) and their state in memory ({@link LedgerStores#IN_MEMORY}:
 * the driver flushes every store after each input, which RocksDB pays with a file per store; ADR
 * 0021).
 */
public final class ReplayTargets {

  /** Where quota-svc finds its bootstrap definition by default ({@code tideline.quota.definition-file}). */
  public static final String DEFAULT_QUOTA_DEFINITION = "classpath:quota/definition.yaml";

  private ReplayTargets() {}

  /** Placement: decisions, evictions and preemption requests of one cluster's ledger. */
  public static ReplayTarget placement(String cluster) {
    PlacementPolicy policy = PlacementPolicy.defaults(cluster);
    return new ReplayTarget("placement", TopicCatalogue.PLACEMENT_LEDGER_INPUTS,
        List.of(TopicCatalogue.PLACEMENT_DECISIONS, TopicCatalogue.EVICTIONS,
            TopicCatalogue.PREEMPTION_REQUESTS, TopicCatalogue.PLACEMENT_LEDGER),
        serde -> PlacementTopology.build(policy, serde,
            new PlacementMeters(new SimpleMeterRegistry()), InputBounds.DEFAULTS,
            LedgerStores.IN_MEMORY));
  }

  /** Quota: admission verdicts and reclaims of the cluster's single writer. */
  public static ReplayTarget quota(String cluster, String definitionLocation) {
    QuotaPolicy policy = QuotaPolicy.defaults(cluster, definition(definitionLocation));
    return new ReplayTarget("quota", TopicCatalogue.QUOTA_INPUTS,
        List.of(TopicCatalogue.QUOTA_VERDICTS, QuotaTopics.RECLAIMS),
        serde -> QuotaTopology.build(policy, serde, QuotaListener.NONE,
            InputBounds.DEFAULTS.withSubmissions(policy.intakeLimits()), LedgerStores.IN_MEMORY));
  }

  /**
   * Preemption: the decisions answering placement's requests, reservation starts and quota's
   * idle reclaims, from the cluster's single view (its {@code preemption.inputs} log).
   */
  public static ReplayTarget preemption(String cluster) {
    PreemptionPolicy policy = PreemptionPolicy.defaults(cluster);
    return new ReplayTarget("preemption", TopicCatalogue.PREEMPTION_INPUTS,
        List.of(TopicCatalogue.PREEMPTION_DECISIONS),
        serde -> PreemptionTopology.build(policy, serde, InputBounds.DEFAULTS,
            LedgerStores.IN_MEMORY));
  }

  /** Reads {@code classpath:NAME} or a file path, as quota-svc does at start-up. */
  public static QuotaPolicy.BootstrapDefinition definition(String location) {
    try {
      if (location.startsWith("classpath:")) {
        String name = location.substring("classpath:".length());
        try (InputStream in = ReplayTargets.class.getClassLoader().getResourceAsStream(name)) {
          if (in == null) {
            throw new IllegalArgumentException("quota definition " + location + " not found");
          }
          return new QuotaPolicy.BootstrapDefinition("file:" + location,
              new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
      }
      return new QuotaPolicy.BootstrapDefinition("file:" + location,
          Files.readString(Path.of(location)));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read quota definition " + location + ": " + e, e);
    }
  }
}
