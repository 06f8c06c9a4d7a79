import json
def L(f): return json.load(open('./'+f+'.json'))
def ci(h):
    c=h.get('p99_ci95')
    if not c: return ''
    return ' [%s, %s]' % tuple('–' if v is None else f'{v:.1f}' for v in c)
rows=[]
for drive,label,g,ref in [
  ('tmpfs','uniform, default (d5eebcf)','shm-def-1','ref-shm-fifo'),
  ('tmpfs','uniform, lower','shm-low-1','ref-shm-fifo'),
  ('tmpfs','FIFO (reference, d5eebcf)','ref-shm-fifo',None),
  ('tmpfs','uniform, default (241558f)','ci-shm-uniform','ci-shm-fifo'),
  ('tmpfs','FIFO (reference, 241558f)','ci-shm-fifo',None),
  ('HDD model','uniform, default (d5eebcf)','hdd-def-1','ref-hdd-fifo'),
  ('HDD model','uniform, lower','hdd-low-1','ref-hdd-fifo'),
  ('HDD model','FIFO (reference, d5eebcf)','ref-hdd-fifo',None),
  ('HDD model','uniform, default (241558f)','ci-hdd-uniform','ci-hdd-fifo'),
  ('HDD model','FIFO (reference, 241558f)','ci-hdd-fifo',None)]:
    a=L(g); s=a['steady']; l=a['latency_ms']
    split=l['put_gc']['p99']/l['put_nogc']['p99']
    sr=l.get('put_p99_gc_over_nogc')
    srt=f"{split:.2f}x" + (f" [{sr['ci95'][0]:.2f}, {'–' if sr['ci95'][1] is None else format(sr['ci95'][1],'.2f')}]" if sr else '')
    if ref:
        b=L(ref)['latency_ms']['put']; rr=l['put']['p99']/b['p99']
        rt=f"**{rr:.2f}x**"
        if 'p99_ci95' in b and 'p99_ci95' in l['put']:
            lo=l['put']['p99_ci95'][0]/b['p99_ci95'][1] if b['p99_ci95'][1] else 0
            hi=l['put']['p99_ci95'][1]/b['p99_ci95'][0] if l['put']['p99_ci95'][1] else None
            rt+=f" [{lo:.2f}, {'–' if hi is None else format(hi,'.2f')}]"
    else: rt='—'
    rows.append(f"| {drive} | {label} | {s['wa']:.3f} | {l['put']['p50']:.1f} / {l['put']['p99']:.1f}{ci(l['put'])} | {l['put_gc']['p99']:.1f} ({l['put_gc']['count']}) / {l['put_nogc']['p99']:.1f} ({l['put_nogc']['count']}) | {srt} | {rt} |")
print("\n".join(rows))
