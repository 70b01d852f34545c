package io.tideline.console;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The console's settings ({@code tideline.console.*}); every one has its default here. */
@ConfigMapping(prefix = "tideline.console")
public interface ConsoleConfig {

  /** Width of one point of the tide and fragmentation series (event time). */
  @WithDefault("15m")
  Duration bucket();

  /** How far back the series reach from the latest event seen (the last 24 h by default). */
  @WithDefault("24h")
  Duration window();

  /** Rows per page of every list (queues, decisions, domains, bills). */
  @WithDefault("50")
  int pageSize();

  /** Past forecast slots shown per service against what it actually used. */
  @WithDefault("8")
  int forecastPastSlots();

  /** Forecast slots ahead of the latest event time shown per service. */
  @WithDefault("4")
  int forecastNextSlots();

  /** How long one poll of the console's consumer waits for records. */
  @WithDefault("500ms")
  Duration pollTimeout();

  /** How often the console looks again for topics of its list that did not exist yet. */
  @WithDefault("10s")
  Duration topicRecheck();

  /** How often the live stream (SSE) checks for new records and tells the pages. */
  @WithDefault("1s")
  Duration liveInterval();

  /** Whether the console starts reading Kafka at start-up (tests of the pages alone turn it off). */
  @WithDefault("true")
  boolean feedEnabled();
}
