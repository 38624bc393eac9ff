import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * Keeps about N objects reachable from a static field: a list of N/3 nodes, each with a payload
 * holding an int array. `Million N [DUMP]`: with DUMP, writes an HPROF dump of the live heap.
 */
public class Million {
    static Node head;

    static final class Node {
        Node next;
        final Payload payload;

        Node(Node next, Payload payload) {
            this.next = next;
            this.payload = payload;
        }
    }

    static final class Payload {
        final int[] values;

        Payload(int value) {
            values = new int[] {value};
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n / 3; i++) {
            head = new Node(head, new Payload(i));
        }
        if (args.length > 1) {
            HotSpotDiagnosticMXBean bean =
                    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            bean.dumpHeap(args[1], true);
        }
    }
}
