import { describe, expect, it } from 'vitest';
import { functionName, matchTag, parseTag, translateHidlMark } from './naming';

describe('tags', () => {
  it('takes the last bracketed group followed by a character', () => {
    expect(matchTag('B|1|[NN_LA_PP]funcE1')).toBe('NN_LA_PP');
    expect(matchTag('B|1|[SW][NN_LC_PCO]funcC1')).toBe('NN_LC_PCO');
    expect(matchTag('B|1|[SUB][NN_LR_PC]VersionedIDevice::prepareModel')).toBe('NN_LR_PC');
    expect(matchTag('B|774|[NN_LDV_PC][validat')).toBe('NN_LDV_PC');
    expect(matchTag('B|1|[NN_LA_PO]')).toBeNull(); // nothing after the tag: upstream's regex fails
    expect(matchTag('B|1|HIDL::IDevice::getCapabilities::client')).toBeNull();
    expect(matchTag('x B|1|[NN_LR_PE]a')).toBe('NN_LR_PE'); // searched, not anchored
    expect(matchTag('B|1|[NN_LR_PE]a[b]c')).toBe('b');
  });
  it('agrees with the upstream regex on assorted marks', () => {
    const re = /B\|\d+\|.*\[([^\]]+)\]\[?([^\]])\]?/;
    for (const m of ['B|1|[NN_LA_PP]f', 'B|1|[SW][NN_LC_PCO]f', 'B|2|[a][b]]c', 'B|3|[x]]', 'B|4|[[y]z', 'B|5|[]q', 'B|6|[p][]', 'B|7|[NN_LR_PE]a[b]c[d]']) {
      expect(matchTag(m)).toBe(re.exec(m)?.[1] ?? null);
    }
  });
  it('splits into layer and phase; reports tags without three parts', () => {
    expect(parseTag('B|1|[NN_LR_PP]f')).toEqual({ tag: 'NN_LR_PP', layer: 'LR', phase: 'PP', hidl: false });
    expect(parseTag('B|1|[NN_LR_PE]f[x]y')).toHaveProperty('error');
    expect(parseTag('B|1|[NN_LR_PE_X]f')).toHaveProperty('error');
  });
});

describe('HIDL marks', () => {
  const cases: [string, string][] = [
    ['HIDL::IDevice::getCapabilities::client', 'NN_LI_PI'],
    ['HIDL::IDevice::getCapabilities::server', 'NN_LD_PI'],
    ['HIDL::IDevice::prepareModel_1_1::client', 'NN_LI_PC'],
    ['HIDL::IDevice::getSupportedOperations::server', 'NN_LD_PC'],
    ['HIDL::IPreparedModelCallback::notify::client', 'NN_LX_PC'],
    ['HIDL::IPreparedModelCallback::notify::server', 'NN_LX_PC'],
    ['HIDL::IPreparedModel::execute::client', 'NN_LI_PE'],
    ['HIDL::IPreparedModel::execute::server', 'NN_LD_PE'],
    ['HIDL::IExecutionCallback::notify::client', 'NN_LX_PE'],
    ['HIDL::IAllocator::allocate::client', 'NN_LI_PU'],
    ['HIDL::IServiceManager::getTransport::client', 'NN_LI_PI'],
    ['HIDL::IMapper::freeBuffer::passthrough', 'NN_LI_PI'],
    ['FreeBuffer', 'NN_LX_PI'],
  ];
  for (const [mark, tag] of cases) it(mark, () => expect(translateHidlMark(`B|1|${mark}`)).toBe(tag));
  it('function names', () => {
    expect(functionName('B|1|[NN_LR_PE]ANeuralNetworksExecution_startCompute')).toBe('ANeuralNetworksExecution_startCompute');
    expect(functionName('B|1|[SW][NN_LC_PCO]optimized_ops::Conv')).toBe('optimized_ops::Conv');
    expect(functionName('B|756|HIDL::IPreparedModel::execute::server')).toBe('HIDL::IPreparedModel::execute::server');
  });
});
