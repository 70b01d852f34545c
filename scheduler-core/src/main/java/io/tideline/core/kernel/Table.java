package io.tideline.core.kernel;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import org.pcollections.TreePMap;

/**
 * One named, persistent (immutable, structure-sharing) table of a kernel state: entities by id,
 * iterated in id order (deterministic). Every write names the step's {@link Journal}, so the
 * adapter knows which entities to persist.
 *
 * @param <V> the entity type
 */
public final class Table<V> {

  private final String name;
  private final TreePMap<String, V> rows;

  private Table(String name, TreePMap<String, V> rows) {
    this.name = name;
    this.rows = rows;
  }

  /** An empty table called {@code name} (the store's table name). */
  public static <V> Table<V> empty(String name) {
    return new Table<>(Objects.requireNonNull(name, "name"), TreePMap.empty());
  }

  /** A table restored from {@code rows} (no journal: restoring changes nothing). */
  public static <V> Table<V> of(String name, Map<String, V> rows) {
    return new Table<>(name, TreePMap.from(rows));
  }

  /** The table's name. */
  public String name() {
    return name;
  }

  /** The entity {@code id}, or {@code null}. */
  public V get(String id) {
    return rows.get(id);
  }

  /** Whether {@code id} exists. */
  public boolean has(String id) {
    return rows.containsKey(id);
  }

  /** This table with {@code id} set to {@code value} ({@code null} removes it). */
  public Table<V> put(Journal journal, String id, V value) {
    if (value == null) {
      return remove(journal, id);
    }
    if (value.equals(rows.get(id))) {
      return this;
    }
    journal.touch(name, id);
    return new Table<>(name, rows.plus(id, value));
  }

  /** This table without {@code id}. */
  public Table<V> remove(Journal journal, String id) {
    if (!rows.containsKey(id)) {
      return this;
    }
    journal.touch(name, id);
    return new Table<>(name, rows.minus(id));
  }

  /** Ids in order. */
  public Set<String> ids() {
    return rows.keySet();
  }

  /** Entities in id order. */
  public Collection<V> values() {
    return rows.values();
  }

  /** Entities by id, read-only, in id order. */
  public Map<String, V> asMap() {
    return rows;
  }

  /** Visits every entity in id order. */
  public void forEach(BiConsumer<String, V> visit) {
    rows.forEach(visit);
  }

  /** Number of entities. */
  public int size() {
    return rows.size();
  }

  /** Whether the table is empty. */
  public boolean isEmpty() {
    return rows.isEmpty();
  }
}
