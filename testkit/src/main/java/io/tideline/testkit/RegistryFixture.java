package io.tideline.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real schema registry per test class, started before the first test and closed after the
 * last, for the {@code TopologyTestDriver} scenario classes that need real serdes but no broker.
 * Why a fixture: every topology test class had the same start/stop pair; this keeps the registry
 * lifecycle in one place. Use it as
 *
 * <pre>{@code
 * @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
 * ... new LedgerDriver(registry.url())
 * }</pre>
 */
public final class RegistryFixture implements BeforeAllCallback, AfterAllCallback {

  private SchemaRegistryServer server;
  /** {@code @Nested} classes inherit the extension: only the outermost class starts and stops. */
  private int depth;

  @Override
  public void beforeAll(ExtensionContext context) {
    if (depth++ == 0) {
      server = SchemaRegistryServer.start();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (--depth == 0 && server != null) {
      server.close();
      server = null;
    }
  }

  /** The registry's base URL, for {@code AvroSerdes.serdeConfig(url, true)}. */
  public String url() {
    if (server == null) {
      throw new IllegalStateException("RegistryFixture is not started: register it as a static "
          + "@RegisterExtension field");
    }
    return server.url();
  }
}
