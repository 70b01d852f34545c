import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Creates the topics of the catalogue (platform/src/main/resources/tideline/topics.csv) that are
 * missing, in one admin call. Run by ./tideline up as a single-file program:
 * java -cp '.tideline/kafka/libs/*' deploy/local/CreateTopics.java BOOTSTRAP CATALOGUE [CLIENT_PROPERTIES]
 * (CLIENT_PROPERTIES: Kafka client settings to connect with, e.g. the provisioning identity's on a
 * secured broker: ./tideline up --secure, ADR 0022).
 */
public class CreateTopics {
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    if (args.length > 2) {
      try (var r = Files.newBufferedReader(Path.of(args[2]))) {
        p.load(r);
      }
    }
    p.put("bootstrap.servers", args[0]);
    List<NewTopic> wanted = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[1]))) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split(",", -1);
      // "retain": a log kept forever (the ledgers' input logs an audit replays, ADR 0005)
      Map<String, String> configs = "retain".equals(f[2].trim())
          ? Map.of("cleanup.policy", "delete", "retention.ms", "-1")
          : Map.of("cleanup.policy", f[2].trim());
      wanted.add(new NewTopic(f[0].trim(), Integer.parseInt(f[1].trim()), (short) 1)
          .configs(configs));
    }
    try (Admin admin = Admin.create(p)) {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<NewTopic> missing = wanted.stream().filter(t -> !existing.contains(t.name())).toList();
      if (!missing.isEmpty()) {
        admin.createTopics(missing).all().get(60, TimeUnit.SECONDS);
      }
      System.out.println("topics: " + wanted.size() + " in catalogue, " + missing.size() + " created");
    }
  }
}
