package io.tideline.simulator;

import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.TopologyCsv;
import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.pricing.PricingConfig;
import io.tideline.core.pricing.SlotTimeline;
import io.tideline.core.pricing.UsageMeter;
import io.tideline.core.slots.SlotClassifier;
import io.tideline.core.slots.SlotClassifierConfig;
import io.tideline.core.slots.SlotGrid;
import io.tideline.core.slots.SlotMap;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Everything a run shares across policies, built once so every policy sees the same fleet, the
 * same online demand and the same jobs: the nodes (the public Clos table sorted by switch path, so
 * a truncated fleet keeps whole access-switch domains, then truncated or replicated), the online
 * demand, the offline jobs, the F4 slot map (K-means over the mean daily online profile) and the
 * priced cost of the whole fleet over the horizon (B1).
 *
 * @param config the run's config
 * @param nodes the physical fleet
 * @param demand online demand per service and step
 * @param jobs offline jobs in submission order
 * @param slotMap F4 slot classes of the day
 * @param fleetCost B1 price of every fleet GPU-hour of the horizon at its slot's on-demand rate
 */
public record Scenario(SimConfig config, List<Node> nodes, InferenceDemand demand,
    List<JobSpec> jobs, SlotMap slotMap, double fleetCost) {

  static final String TOPOLOGY = "network-topology-847-hosts.csv";
  static final String DEMAND = "inference-demand-10min.csv";
  static final String SAMPLE_JOBS = "sample-jobs.csv";

  public Scenario {
    Objects.requireNonNull(config, "config");
    nodes = List.copyOf(nodes);
    jobs = List.copyOf(jobs);
  }

  /** The shipped topology and demand trace with the synthetic job generator. */
  public static Scenario synthetic(SimConfig config) {
    return of(config, SyntheticWorkload.generate(config));
  }

  /** The shipped topology and demand trace with the given offline jobs. */
  public static Scenario of(SimConfig config, List<JobSpec> jobs) {
    // 1. fleet: sort by switch path so truncation keeps whole domains, then size it
    List<Node> base = new ArrayList<>(TopologyCsv.parse(resource(TOPOLOGY), config.gpuModel(),
        config.gpusPerNode()));
    base.sort(Comparator.comparing((Node n) -> n.path().aswDomain()).thenComparing(Node::id));
    List<Node> nodes = config.nodes() <= base.size()
        ? base.subList(0, config.nodes()) : TopologyCsv.scaleTo(base, config.nodes());
    // 2. online demand and the F4 slot map of its mean day
    InferenceDemand demand = InferenceDemand.load(resource(DEMAND), config);
    SlotGrid grid = new SlotGrid(config.demandStep(), config.zone());
    SlotMap slotMap = new SlotClassifier(SlotClassifierConfig.DEFAULTS)
        .classify(grid, demand.meanDailyProfile(grid.slotsPerDay()));
    // 3. B1: the fleet's priced cost over the horizon
    double fleetCost = new UsageMeter(PricingConfig.DEFAULTS).exactCost(config.gpuModel(),
        config.fleetGpus(), ChargeBasis.ON_DEMAND, config.start(), config.end(),
        SlotTimeline.of(slotMap)).doubleValue();
    List<JobSpec> inHorizon = jobs.stream()
        .filter(j -> j.submitAt().isBefore(config.end()))
        .sorted(Comparator.comparing(JobSpec::submitAt).thenComparing(JobSpec::id)).toList();
    return new Scenario(config, nodes, demand, inHorizon, slotMap, fleetCost);
  }

  /** A bundled resource of this package as a UTF-8 reader. */
  public static Reader resource(String name) {
    InputStream in = Scenario.class.getResourceAsStream(name);
    if (in == null) {
      throw new IllegalStateException("missing resource " + name);
    }
    return new InputStreamReader(in, StandardCharsets.UTF_8);
  }
}
