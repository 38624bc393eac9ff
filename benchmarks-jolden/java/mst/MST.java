package mst;

import jolden.Alloc;

/**
 * MST: Prim's minimum spanning tree of a complete graph whose edge weights come from a hash of the
 * two vertex numbers. Every vertex keeps its edges in a chained hash table of nv/4 + 1 buckets.
 * Written here from the algorithm (JOlden's mst), not from any implementation.
 *
 * Analyzed methods (closed forms in the README): {@link #makeVertices(int)},
 * {@link #addEdges(Graph, int)} (nv(nv-1) entries), {@link #computeMST(Graph, int)} (nv - 1
 * candidates).
 */
public final class MST {
    private static int nv = 64;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        Graph graph = makeVertices(nv);
        Alloc.report("mst.MST.makeVertices");
        Alloc.start();
        addEdges(graph, nv);
        Alloc.report("mst.MST.addEdges");
        Alloc.start();
        int cost = computeMST(graph, nv);
        Alloc.report("mst.MST.computeMST");
        System.out.println("mst: vertices " + nv + " cost " + cost);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-v")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-v requires the number of vertices");
                }
                nv = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java mst.MST [-v nv] [-p] [-m] [-h]");
        System.err.println("    -v  the number of vertices (64)");
        System.exit(0);
    }

    /**
     * The `nv` vertices of the graph, each with an empty table of nv/4 + 1 buckets, in the array
     * and linked through `next` from `first` (built backwards, as the original does).
     */
    static Graph makeVertices(int nv) {
        Graph g = new Graph();
        Alloc.object();
        g.vertices = new Vertex[nv];
        Alloc.array(nv);
        for (int i = nv - 1; i >= 0; i--) {
            Vertex v = new Vertex();
            Alloc.object();
            v.number = i;
            v.edges = new HashTable(nv / 4 + 1);
            v.next = g.first;
            g.first = v;
            g.vertices[i] = v;
        }
        return g;
    }

    /** An edge from every vertex of the list to every other one: nv(nv - 1) table entries. */
    static void addEdges(Graph g, int nv) {
        for (Vertex src = g.first; src != null; src = src.next) {
            for (int j = 0; j < nv; j++) {
                Vertex dest = g.vertices[j];
                if (dest != src) {
                    src.edges.put(dest.number, weight(src.number, dest.number));
                }
            }
        }
    }

    /** A pseudo-random weight in [1, 2048], the same both ways. */
    static int weight(int i, int j) {
        // Not Math.min and Math.max: java.lang.Math's initializer drags much of the JDK into a
        // call graph.
        int lo = i < j ? i : j;
        int hi = i < j ? j : i;
        int h = lo * 0x9E3779B1 ^ hi * 0x85EBCA77;
        h ^= h >>> 15;
        h *= 0x2C1B3C6D;
        h ^= h >>> 12;
        return (h & 2047) + 1;
    }

    /**
     * Prim's algorithm from the first vertex; returns the weight of the tree. The vertices
     * outside the tree stay linked through `next`; each of the nv - 1 rounds walks that list,
     * relaxing distances through the vertex inserted last and finding the nearest one (one
     * {@link Blue} per round), which then leaves the list.
     */
    static int computeMST(Graph g, int nv) {
        Vertex inserted = g.first;
        if (inserted == null) {
            return 0;
        }
        Vertex outside = inserted.next;
        for (Vertex v = outside; v != null; v = v.next) {
            v.minDist = Integer.MAX_VALUE;
        }
        int cost = 0;
        for (int remaining = nv - 1; remaining > 0; remaining--) {
            Blue blue = blueRule(inserted, outside);
            cost += blue.dist;
            inserted = blue.vertex;
            outside = unlink(outside, inserted);
        }
        return cost;
    }

    /** Relaxes the list `outside` through `inserted` and returns its nearest vertex. */
    private static Blue blueRule(Vertex inserted, Vertex outside) {
        Blue best = new Blue();
        Alloc.object();
        best.dist = Integer.MAX_VALUE;
        for (Vertex v = outside; v != null; v = v.next) {
            int d = inserted.edges.get(v.number);
            if (d < v.minDist) {
                v.minDist = d;
            }
            if (v.minDist < best.dist) {
                best.dist = v.minDist;
                best.vertex = v;
            }
        }
        return best;
    }

    /** The list from `list` without `v`, which is on it. */
    private static Vertex unlink(Vertex list, Vertex v) {
        if (list == v) {
            return v.next;
        }
        Vertex previous = list;
        while (previous.next != v) {
            previous = previous.next;
        }
        previous.next = v.next;
        return list;
    }
}

final class Graph {
    Vertex[] vertices;
    Vertex first;
}

final class Vertex {
    int number;
    HashTable edges;
    int minDist;
    Vertex next;
}

final class Blue {
    Vertex vertex;
    int dist;
}

/** A chained hash table from vertex numbers to weights. */
final class HashTable {
    private final Entry[] buckets;

    HashTable(int size) {
        buckets = new Entry[size];
        Alloc.object(); // this table
        Alloc.array(size);
    }

    void put(int key, int value) {
        Entry e = new Entry();
        Alloc.object();
        e.key = key;
        e.value = value;
        int b = key % buckets.length;
        e.next = buckets[b];
        buckets[b] = e;
    }

    int get(int key) {
        for (Entry e = buckets[key % buckets.length]; e != null; e = e.next) {
            if (e.key == key) {
                return e.value;
            }
        }
        return Integer.MAX_VALUE;
    }
}

final class Entry {
    int key;
    int value;
    Entry next;
}
