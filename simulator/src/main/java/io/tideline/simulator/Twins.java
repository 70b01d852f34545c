package io.tideline.simulator;

import io.tideline.platform.kernel.PlacementHost;
import io.tideline.platform.kernel.PreemptionHost;
import io.tideline.platform.kernel.forecast.ForecastKernelHost;
import io.tideline.platform.kernel.quota.QuotaKernelHost;
import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import java.util.Set;

/**
 * The schedulers the twin composes in process: the services' own kernel hosts (placement,
 * preemption, quota, the forecaster), each reading the topics its service reads, with the policy's settings (the baselines change one setting of the
 * shipped policy, {@link Policy}).
 */
public final class Twins {

  /** The cluster every record names (the services' default). */
  public static final String CLUSTER = "default";

  private Twins() {}

  /** Every scheduler of Tideline, in process, deciding with {@code policy}. */
  public static InProcessTransport inProcess(Scenario scenario, Policy policy) {
    InProcessTransport t = new InProcessTransport();
    t.with("placement", new PlacementHost(policy.placement(CLUSTER, scenario)),
        Set.copyOf(PlacementHost.inputTopics()));
    t.with("preemption", new PreemptionHost(policy.preemptionPolicy(CLUSTER)),
        Set.copyOf(PreemptionHost.inputTopics()));
    t.with("quota", new QuotaKernelHost(QuotaKernelConfig.defaults(CLUSTER, null)),
        Set.copyOf(QuotaKernelHost.inputTopics()));
    if (policy.forecastReservations()) {
      // baseline (c) runs without the forecaster: nobody reserves ahead of a rise
      t.with("forecaster", new ForecastKernelHost(forecast(scenario, policy)),
          Set.copyOf(ForecastKernelHost.inputTopics()));
    }
    return t;
  }

  /** The forecaster's settings for {@code scenario}: the shipped defaults in its zone. */
  public static ForecastKernelConfig forecast(Scenario scenario) {
    return ForecastKernelConfig.defaults(CLUSTER, scenario.config().zone());
  }

  /** The forecaster's settings for {@code scenario} under {@code policy}'s start eviction. */
  public static ForecastKernelConfig forecast(Scenario scenario, Policy policy) {
    ForecastKernelConfig c = forecast(scenario);
    return c.withReservation(c.reservation().withStartEviction(policy.startEviction()));
  }

  /** A world for {@code scenario} with the twin's standard settings. */
  public static World world(Scenario scenario) {
    return new World(scenario, CLUSTER, java.time.Duration.ofMinutes(5),
        scenario.config().onlineGuaranteeFraction());
  }
}
