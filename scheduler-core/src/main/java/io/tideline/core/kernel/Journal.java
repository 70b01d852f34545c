package io.tideline.core.kernel;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The entities one step changed, table by table: what an adapter writes to (or deletes from) its
 * store after the step, so persistence follows the state exactly without comparing whole states.
 * Mutable, owned by one step; a kernel hands it to each {@link Table} write and returns
 * {@link #changes()} with the step.
 */
public final class Journal {

  /** One changed entity: its table and id. */
  public record Changed(String table, String id) {
    public Changed {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(id, "id");
    }
  }

  private final LinkedHashSet<Changed> changed = new LinkedHashSet<>();

  /** Records that {@code id} of {@code table} changed (was written or removed). */
  public void touch(String table, String id) {
    changed.add(new Changed(table, id));
  }

  /** What changed, in first-touch order. */
  public Set<Changed> changes() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(changed));
  }
}
