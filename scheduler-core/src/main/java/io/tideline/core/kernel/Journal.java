package io.tideline.core.kernel;

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

    // written out (the generated ones dispatch through a method handle): every table write and
    // every step hashes these; same values as the generated ones

    @Override
    public boolean equals(Object o) {
      return this == o
          || o instanceof Changed c && table.equals(c.table) && id.equals(c.id);
    }

    @Override
    public int hashCode() {
      return 31 * table.hashCode() + id.hashCode();
    }
  }

  private final LinkedHashSet<Changed> changed = new LinkedHashSet<>();

  /** Records that {@code id} of {@code table} changed (was written or removed). */
  public void touch(String table, String id) {
    changed.add(new Changed(table, id));
  }

  /**
   * What changed: an immutable set, in no particular order — a {@link Step} holds its changes as
   * {@code Set.copyOf}, which takes this set as it is (one copy per step, not two).
   */
  public Set<Changed> changes() {
    return Set.copyOf(changed);
  }
}
