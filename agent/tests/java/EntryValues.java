import java.util.AbstractList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

// The values the agent records at each entry of Sub.run besides allocations: the integer fields
// of `this` (a superclass's `n` hidden by the subclass's), the static fields named in the options
// (Late's only once its class is initialized), a String's length and the sizes of a list, a map
// and a collection whose size() allocates (the agent's call, not the program's allocation).
public class EntryValues {
    static int size;

    static class Late {
        static int limit = 9;
    }

    static class Base {
        int n = 100;
        long big = 1L << 40;
    }

    static class Sub extends Base {
        int n;
        short s = -3;
        char c = 'A';
        boolean flag = true;
        byte b = 7;
        double ignored = 2.5;

        Sub(int n) {
            this.n = n;
        }

        // n objects, whatever the arguments.
        int run(String text, List<Integer> list, Map<String, Integer> map, Object other,
                Collection<Integer> noisy, String nothing) {
            int made = 0;
            for (int i = 0; i < n; i++) {
                new Object();
                made++;
            }
            return made;
        }
    }

    static class Noisy extends AbstractList<Integer> {
        public Integer get(int i) {
            return i;
        }

        public int size() {
            new Object();
            return 2;
        }
    }

    public static void main(String[] args) {
        size = Integer.parseInt(args[0]);
        Sub sub = new Sub(size + 1);
        Noisy noisy = new Noisy();
        List<Integer> list = List.of(1, 2, 3);
        Map<String, Integer> map = Map.of("a", 1);
        Object other = new Object();
        sub.run("hello", list, map, other, noisy, null);
        System.out.println("limit " + Late.limit);
        sub.run("", list, map, other, noisy, null);
    }
}
