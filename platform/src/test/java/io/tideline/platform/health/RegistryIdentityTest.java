package io.tideline.platform.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.JobSubmitted;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.serde.ContractSubjects;
import io.tideline.platform.serde.SchemaCaches;
import io.tideline.testkit.SchemaRegistryServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue #16 finding 6 on a real registry process: its schemas, ids and identity survive a kill -9
 * (file-backed storage, ADR 0013); a registry that lost its storage has another identity, and a
 * service that sees the change empties every schema cache instead of trusting an old id.
 */
class RegistryIdentityTest {

  @Test
  void shouldKeepSchemasIdsAndIdentityAcrossAKill9AndNoticeAWipedRegistry() throws Exception {
    Path storage = Files.createTempDirectory("registry-storage");
    SchemaRegistryServer registry = SchemaRegistryServer.startProcess(storage,
        freePort());
    try {
      List<ContractSubjects.Subject> subjects =
          List.of(ContractSubjects.of("identity-jobs", JobSubmitted.class));
      List<ContractSubjects.Registered> ids = ContractSubjects.register(registry.url(), subjects);
      RegistryIdentityWatch watch = new RegistryIdentityWatch(config(registry.url()));
      String identity = watch.check();
      assertThat(identity).isNotBlank();

      // 1. kill -9 and restart on the same storage: same ids, same identity, nothing reset
      registry.restart(true);
      assertThat(ContractSubjects.register(registry.url(), subjects)).isEqualTo(ids);
      int resets = SchemaCaches.resets();
      assertThat(watch.check()).isEqualTo(identity);
      assertThat(watch.changes()).isZero();
      assertThat(SchemaCaches.resets()).isEqualTo(resets);

      // 2. the same URL, a registry without the old storage: another identity, caches emptied
      registry.stopProcess(true);
      SchemaRegistryServer wiped = SchemaRegistryServer.startProcess(
          Files.createTempDirectory("registry-wiped"), port(registry.url()));
      try {
        String other = watch.check();
        assertThat(other).isNotBlank().isNotEqualTo(identity);
        assertThat(watch.changes()).isEqualTo(1);
        assertThat(SchemaCaches.resets()).isEqualTo(resets + 1);
        assertThat(watch.identity()).isEqualTo(other);
      } finally {
        wiped.close();
      }
    } finally {
      registry.close();
    }
  }

  private static int freePort() throws Exception {
    try (var s = new java.net.ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static int port(String url) {
    return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
  }

  private static TidelineConfig config(String url) {
    return new TidelineConfig() {
      @Override
      public String service() {
        return "identity-test";
      }

      @Override
      public String cluster() {
        return "default";
      }

      @Override
      public Registry registry() {
        return new Registry() {
          @Override
          public String url() {
            return url;
          }

          @Override
          public boolean autoRegister() {
            return true;
          }

          @Override
          public Duration identityCheckInterval() {
            return Duration.ofSeconds(15);
          }
        };
      }

      @Override
      public Topics topics() {
        return null;
      }
    };
  }
}
