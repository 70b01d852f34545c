package io.tideline.platform.kernel;

import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Timed;
import io.tideline.events.LedgerInput;
import io.tideline.state.StoredInboxEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Persists a kernel's inbox (ADR 0008): an input that enters it is stored as it was read (its
 * {@link LedgerInput} envelope, so restoring decodes it with the same mapping as the live path);
 * the entries a tick drained are deleted. Shared by every kernel host.
 */
public final class InboxStore {

  /** The store table of inbox entries. */
  public static final String TABLE = "inbox";

  private InboxStore() {}

  /** The entity id of sequence {@code seq}: zero-padded, so store order is arrival order. */
  public static String id(long seq) {
    return String.format(Locale.ROOT, "%019d", seq);
  }

  /** The writes that take the store from {@code before}'s inbox to {@code after}'s. */
  public static <T extends Timed> List<StoreOp> ops(Inbox<T> before, Inbox<T> after,
      LedgerInput arrived) {
    List<StoreOp> ops = new ArrayList<>();
    if (before == after) {
      return ops;
    }
    // 1. an arrival: exactly the sequences the inbox handed out in this step
    long added = after.nextSeq() - before.nextSeq();
    if (added > 0 && arrived == null) {
      throw new IllegalStateException("an input entered the inbox without its envelope");
    }
    for (long seq = before.nextSeq(); seq < after.nextSeq(); seq++) {
      ops.add(new StoreOp(TABLE, id(seq), new StoredInboxEntry(seq, arrived)));
    }
    // 2. a tick: the entries it drained (only then does the inbox shrink)
    if (after.size() < before.size() + added) {
      Set<Long> kept = new HashSet<>();
      after.entries().forEach(e -> kept.add(e.position().seq()));
      for (Inbox.Entry<T> e : before.entries()) {
        if (!kept.contains(e.position().seq())) {
          ops.add(new StoreOp(TABLE, id(e.position().seq()), null));
        }
      }
    }
    return ops;
  }
}
