package io.tideline.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.console.view.ConsoleState;
import io.tideline.platform.security.AclPlan;
import io.tideline.platform.security.AclRule.Operation;
import io.tideline.platform.security.Identity;
import org.junit.jupiter.api.Test;

/**
 * On a secured cluster the console's principal ({@code console}) may read exactly the topics its
 * views fold — the catalogue names it as their consumer — and write nothing (ADR 0032).
 */
class ConsoleAccessTest {

  private static final AclPlan PLAN = AclPlan.fromCatalogue();

  @Test
  void shouldLetTheConsoleReadWhatItFoldsAndWriteNothing() {
    assertThat(Identity.ofUser("console")).contains(Identity.CONSOLE);
    for (String topic : ConsoleState.TOPICS) {
      assertThat(PLAN.allows(Identity.CONSOLE, topic, Operation.READ)).as("console reads %s", topic)
          .isTrue();
    }
    assertThat(PLAN.reads(Identity.CONSOLE)).containsExactlyInAnyOrderElementsOf(ConsoleState.TOPICS);
    assertThat(PLAN.writes(Identity.CONSOLE)).isEmpty();
  }
}
