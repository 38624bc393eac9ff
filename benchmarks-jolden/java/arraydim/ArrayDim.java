package arraydim;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Vector;

import jolden.Alloc;
import jolden.Options;

/**
 * The thesis's collection example (Fig 2.4, App. B): a dynamic array built from blocks of BSIZE
 * cells kept in a Vector; a block is allocated every BSIZE-th element, so addAll(c) allocates
 * ceil(c.size() / 5) blocks. Written here from the figure. `ArrayDim <size>` adds `size` integers.
 */
public final class ArrayDim {
    static final int BSIZE = 5;

    private final Vector<Object[]> list;
    private int len;

    ArrayDim() {
        list = new Vector<>();
        len = 0;
    }

    public static void main(String[] args) {
        int size = Options.positional(args, 0, 23);
        List<Object> c = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            c.add(i);
        }
        ArrayDim d = new ArrayDim();
        Alloc.start();
        d.addAll(c);
        Alloc.report("arraydim.ArrayDim.addAll");
        System.out.println("arraydim: size " + size + " blocks " + d.list.size());
    }

    void add(Object o) {
        Object[] block;
        if (len % BSIZE == 0) {
            block = newBlock(BSIZE);
        } else {
            block = list.lastElement();
        }
        block[len % BSIZE] = o;
        len++;
    }

    Object[] newBlock(int how) {
        Object[] block = new Object[how];
        Alloc.array(how);
        list.add(block);
        return block;
    }

    void addAll(Collection<?> c) {
        for (Iterator<?> it = c.iterator(); it.hasNext();) {
            add(it.next());
        }
    }
}
