package io.tideline.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class VictimGuardTest {

  final VictimGuard guard = new VictimGuard(PreemptionConfig.DEFAULTS);
  final RunningJob startedAt14 = Jobs.training("t").startedAt("2026-11-02T14:00:00Z").build();

  @Test
  void shouldProtectAJobAt14Minutes59SecondsAfterItsStart() {
    assertThat(guard.isProtected(startedAt14, Instant.parse("2026-11-02T14:14:59Z"))).isTrue();
  }

  @Test
  void shouldStopProtectingAJobAtExactly15MinutesAfterItsStart() {
    assertThat(guard.isProtected(startedAt14, Instant.parse("2026-11-02T14:15:00Z"))).isFalse();
    assertThat(guard.protectedUntil(startedAt14)).isEqualTo("2026-11-02T14:15:00Z");
  }

  @Test
  void shouldKeepAPreemptedJobInCooldownAt29Minutes59Seconds() {
    RunningJob job = Jobs.training("t").lastPreemptedAt("2026-11-02T14:00:00Z").build();

    assertThat(guard.inCooldown(job, Instant.parse("2026-11-02T14:29:59Z"))).isTrue();
    assertThat(guard.inCooldown(job, Instant.parse("2026-11-02T14:30:00Z"))).isFalse();
  }

  @Test
  void shouldOfferTheCooldownToQuotaForAJobThatIsNotRunning() {
    Instant preempted = Instant.parse("2026-11-02T14:00:00Z");

    assertThat(guard.inCooldown(preempted, Instant.parse("2026-11-02T14:10:00Z"))).isTrue();
    assertThat(guard.cooldownUntil(preempted)).isEqualTo("2026-11-02T14:30:00Z");
  }

  @Test
  void shouldNeverCoolDownAJobThatWasNeverPreempted() {
    assertThat(guard.inCooldown((Instant) null, Instant.parse("2026-11-02T14:00:00Z"))).isFalse();
    assertThat(guard.cooldownUntil(null)).isNull();
  }
}
