// Recursion, exceptions unwinding tracked frames, an exception the VM creates, and an instance
// method with int, long, float and array parameters. Counters in source count the program's own
// allocations; main prints them as `<type> <count>` lines after run has returned.
public class Tricky {
    static final class Node {
        Node left, right;
    }

    static final RuntimeException STOP = new RuntimeException("preallocated");
    static long nodes, longArrays;

    static Node tree(int depth) {
        Node node = new Node();
        nodes++;
        if (depth > 0) {
            node.left = tree(depth - 1);
            node.right = tree(depth - 1);
        }
        return node;
    }

    static void risky(int i) {
        long[] scratch = new long[i % 3];
        longArrays++;
        if (i % 2 == 0) {
            throw STOP;
        }
        scratch = null;
    }

    static int divide(int a, int b) {
        return a / b;
    }

    int run(int depth, long repeats, float unused, int[] data) {
        int caught = 0;
        tree(depth);
        for (int i = 0; i < repeats; i++) {
            try {
                risky(i);
            } catch (RuntimeException e) {
                caught++;
            }
        }
        try {
            divide(data.length, 0);
        } catch (ArithmeticException e) {
            // The VM made this exception, not a `new` of the program.
            caught++;
        }
        return caught;
    }

    public static void main(String[] args) {
        int depth = Integer.parseInt(args[0]);
        long repeats = Long.parseLong(args[1]);
        int caught = new Tricky().run(depth, repeats, 1.5f, new int[7]);
        System.out.println("Tricky$Node " + nodes);
        System.out.println("long[] " + longArrays);
        System.out.println("caught " + caught);
    }
}
