package em3d;

import java.util.Enumeration;
import java.util.NoSuchElementException;
import java.util.Random;

import jolden.Alloc;

/**
 * Em3d: propagation of electromagnetic waves on a bipartite graph. E nodes (electric field) and H
 * nodes (magnetic field) each point to `degree` random nodes of the other kind; every step a
 * node's value drops by the weighted values of the nodes that point to it, first for all E
 * nodes, then for all H nodes. Written here from the algorithm (JOlden's em3d), not from any
 * implementation.
 *
 * Analyzed methods (closed forms in the README): {@link #create(int, int)},
 * {@link #compute(BiGraph, int)} (two enumerations per iteration), and
 * {@link Node#makeFromNodes()} (two arrays of `fromCount` cells).
 */
public final class Em3d {
    /** The random numbers of the run, from a fixed seed as in the original. */
    private static final Random random = new Random(783);
    private static int numNodes = 64;
    private static int numDegree = 8;
    private static int iterations = 10;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        BiGraph graph = create(numNodes, numDegree);
        Alloc.report("em3d.Em3d.create");
        Alloc.start();
        compute(graph, iterations);
        Alloc.report("em3d.Em3d.compute");
        double checksum = 0;
        for (Node n = graph.eNodes; n != null; n = n.next) {
            checksum += n.value;
        }
        for (Node n = graph.hNodes; n != null; n = n.next) {
            checksum += n.value;
        }
        System.out.println("em3d: nodes " + numNodes + " degree " + numDegree + " checksum "
                + checksum);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-n")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException(
                            "-n requires the number of nodes of each kind");
                }
                numNodes = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-d")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-d requires the out-degree of each node");
                }
                numDegree = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-i")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-i requires the number of iterations");
                }
                iterations = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java em3d.Em3d [-n numNodes] [-d numDegree] [-i iterations]"
                + " [-p] [-m] [-h]");
        System.err.println("    -n  the number of nodes of each kind (64)");
        System.err.println("    -d  the out-degree of each node (8)");
        System.err.println("    -i  the number of iterations (10)");
        System.exit(0);
    }

    /**
     * The bipartite graph: `numNodes` E and H nodes, each list linked through `next` and kept
     * in a table for the random choice of neighbours; each node points to `numDegree` others.
     */
    static BiGraph create(int numNodes, int numDegree) {
        BiGraph g = new BiGraph();
        Alloc.object();
        Node[] eTable = fillTable(numNodes, numDegree);
        Node[] hTable = fillTable(numNodes, numDegree);
        g.eNodes = numNodes > 0 ? eTable[0] : null;
        g.hNodes = numNodes > 0 ? hTable[0] : null;
        for (Node n = g.eNodes; n != null; n = n.next) {
            n.makeNeighbors(hTable, numDegree);
        }
        for (Node n = g.hNodes; n != null; n = n.next) {
            n.makeNeighbors(eTable, numDegree);
        }
        for (Node n = g.eNodes; n != null; n = n.next) {
            n.makeFromNodes();
        }
        for (Node n = g.hNodes; n != null; n = n.next) {
            n.makeFromNodes();
        }
        for (Node n = g.eNodes; n != null; n = n.next) {
            n.updateFromNodes(numDegree);
        }
        for (Node n = g.hNodes; n != null; n = n.next) {
            n.updateFromNodes(numDegree);
        }
        return g;
    }

    /** `numNodes` new nodes in a table, each linked to the next. */
    private static Node[] fillTable(int numNodes, int degree) {
        Node[] table = new Node[numNodes];
        Alloc.array(numNodes);
        Node previous = null;
        for (int i = 0; i < numNodes; i++) {
            Node n = new Node();
            Alloc.object();
            n.value = random.nextDouble();
            n.toNodes = new Node[degree];
            Alloc.array(degree);
            table[i] = n;
            if (previous != null) {
                previous.next = n;
            }
            previous = n;
        }
        return table;
    }

    /** A random number in [0, bound). */
    static int nextInt(int bound) {
        return random.nextInt(bound);
    }

    /** A random number in [0, 1). */
    static double nextDouble() {
        return random.nextDouble();
    }

    /** `iterations` steps of propagation, first over the E nodes, then over the H nodes. */
    static void compute(BiGraph g, int iterations) {
        for (int t = 0; t < iterations; t++) {
            for (Enumeration<Node> e = Node.elements(g.eNodes); e.hasMoreElements(); ) {
                e.nextElement().computeNewValue();
            }
            for (Enumeration<Node> e = Node.elements(g.hNodes); e.hasMoreElements(); ) {
                e.nextElement().computeNewValue();
            }
        }
    }
}

final class BiGraph {
    /** The first E node and the first H node; each list continues through `next`. */
    Node eNodes;
    Node hNodes;
}

final class Node {
    double value;
    Node next;
    Node[] toNodes;
    Node[] fromNodes;
    double[] coeffs;
    int fromCount;
    int fromLength;

    /** The nodes of the list from `first`, walking `next`. */
    static Enumeration<Node> elements(Node first) {
        Alloc.object();
        return new NodeEnumeration(first);
    }

    /** Points this node at `degree` random nodes of `table` (the other kind). */
    void makeNeighbors(Node[] table, int degree) {
        for (int j = 0; j < degree; j++) {
            Node other = table[Em3d.nextInt(table.length)];
            toNodes[j] = other;
            other.fromCount++;
        }
    }

    /** Room for the nodes that point here: two arrays of `fromCount` cells. */
    void makeFromNodes() {
        fromNodes = new Node[fromCount];
        Alloc.array(fromCount);
        coeffs = new double[fromCount];
        Alloc.array(fromCount);
    }

    /** Records this node in the from-lists of the nodes it points to. */
    void updateFromNodes(int degree) {
        for (int j = 0; j < degree; j++) {
            Node other = toNodes[j];
            other.fromNodes[other.fromLength] = this;
            // Weights below 1/(4 degree) keep the values from growing without bound.
            other.coeffs[other.fromLength] = Em3d.nextDouble() / (4.0 * degree);
            other.fromLength++;
        }
    }

    /** The new value: the old one less the weighted values of the nodes pointing here. */
    void computeNewValue() {
        for (int k = 0; k < fromCount; k++) {
            value -= coeffs[k] * fromNodes[k].value;
        }
    }
}

/** Walks a node list along `next`. */
final class NodeEnumeration implements Enumeration<Node> {
    private Node current;

    NodeEnumeration(Node first) {
        current = first;
    }

    @Override
    public boolean hasMoreElements() {
        return current != null;
    }

    @Override
    public Node nextElement() {
        Node n = current;
        if (n == null) {
            throw new NoSuchElementException("no more nodes");
        }
        current = n.next;
        return n;
    }
}
