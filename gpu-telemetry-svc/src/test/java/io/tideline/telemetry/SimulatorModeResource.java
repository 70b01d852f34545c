package io.tideline.telemetry;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/** Runs the service as the simulator runs it: samples pushed, the clock driven in simulated time. */
public class SimulatorModeResource implements QuarkusTestResourceLifecycleManager {

  @Override
  public Map<String, String> start() {
    return Map.of("tideline.telemetry.source", "SIMULATOR", "tideline.telemetry.clock.interval", "10s");
  }

  @Override
  public void stop() {}
}
