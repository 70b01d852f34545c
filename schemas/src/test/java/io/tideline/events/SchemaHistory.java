package io.tideline.events;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;

/**
 * Released versions of each contract, kept as self-contained {@code .avsc} files under
 * {@code schemas/src/main/avro-history/<Record>/v<N>.avsc}.
 *
 * <p>To release the current contracts (after a compatible change), run
 * {@code ./mvnw -pl schemas test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.tideline.events.SchemaHistory} or call {@link #release(Path)}: it writes
 * the next version of every record whose schema differs from its latest released one.
 */
public final class SchemaHistory {

  static final Path DIR = Path.of("src/main/avro-history");

  private SchemaHistory() {}

  public static void main(String[] args) throws IOException {
    release(args.length > 0 ? Path.of(args[0]) : DIR);
  }

  /** Released versions of one record, oldest first. */
  static List<Schema> versions(Path dir, String record) throws IOException {
    Path recordDir = dir.resolve(record);
    List<Schema> out = new ArrayList<>();
    if (!Files.isDirectory(recordDir)) {
      return out;
    }
    try (Stream<Path> files = Files.list(recordDir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".avsc"))
          .sorted((a, b) -> Integer.compare(version(a), version(b))).toList()) {
        out.add(new Schema.Parser().parse(f.toFile()));
      }
    }
    return out;
  }

  static void release(Path dir) throws IOException {
    for (var type : Contracts.all()) {
      Schema current = Contracts.schemaOf(type);
      List<Schema> released = versions(dir, current.getName());
      if (!released.isEmpty() && released.get(released.size() - 1).equals(current)) {
        continue;
      }
      Path file = dir.resolve(current.getName()).resolve("v" + (released.size() + 1) + ".avsc");
      Files.createDirectories(file.getParent());
      Files.writeString(file, current.toString(true) + "\n");
      System.out.println("released " + file);
    }
  }

  private static int version(Path file) {
    String name = file.getFileName().toString();
    return Integer.parseInt(name.substring(1, name.length() - ".avsc".length()));
  }
}
