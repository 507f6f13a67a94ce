import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.RemoteClusterUtils;

/**
 * Java MirrorMaker 2's own fail-over call, RemoteClusterUtils.translateOffsets, for the test bed.
 *
 * Arguments: target bootstrap servers, the source cluster's alias, a timeout in milliseconds, then one or
 * more consumer groups. For every group, one line per translated partition on standard output:
 * group TAB topic TAB partition TAB offset, sorted by topic then partition. Logs go to standard error.
 */
public final class TranslateOffsets {
    private TranslateOffsets() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: TranslateOffsets <bootstrap> <source alias> <timeout ms> <group>...");
            System.exit(2);
        }
        Map<String, Object> properties = new HashMap<>();
        properties.put("bootstrap.servers", args[0]);
        Duration timeout = Duration.ofMillis(Long.parseLong(args[2]));
        for (int i = 3; i < args.length; i++) {
            String group = args[i];
            Map<TopicPartition, OffsetAndMetadata> offsets =
                RemoteClusterUtils.translateOffsets(properties, args[1], group, timeout);
            List<TopicPartition> partitions = new ArrayList<>(offsets.keySet());
            partitions.sort((a, b) -> a.topic().equals(b.topic())
                ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
            for (TopicPartition tp : partitions) {
                System.out.println(group + "\t" + tp.topic() + "\t" + tp.partition() + "\t"
                    + offsets.get(tp).offset());
            }
        }
        System.out.flush();
    }
}
