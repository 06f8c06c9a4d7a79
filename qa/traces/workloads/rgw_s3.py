"""boto3 S3 workload against radosgw for qa/traces/capture.sh: create a bucket, put small
and multi-MiB objects, get them back (bytes verified), delete some, and complete a
multipart upload of 3 parts.

    rgw_s3.py ENDPOINT ACCESS_KEY SECRET_KEY
"""
import hashlib
import sys

import boto3
from botocore.config import Config


def main() -> int:
    endpoint, ak, sk = sys.argv[1], sys.argv[2], sys.argv[3]
    s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=ak,
                      aws_secret_access_key=sk, region_name="us-east-1",
                      config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2}))
    s3.create_bucket(Bucket="trace")
    blobs = {"small-1": b"a" * 100, "small-2": b"b" * 4096,
             "big-3m": bytes(range(256)) * (3 * 4096), "big-5m": b"c" * (5 << 20)}
    for k, v in blobs.items():
        s3.put_object(Bucket="trace", Key=k, Body=v)
    for k, v in blobs.items():
        got = s3.get_object(Bucket="trace", Key=k)["Body"].read()
        assert hashlib.sha256(got).digest() == hashlib.sha256(v).digest(), k
    s3.delete_object(Bucket="trace", Key="small-2")
    s3.delete_object(Bucket="trace", Key="big-5m")
    part = 5 << 20  # S3's minimum part size (the last part may be smaller)
    parts_data = [b"p" * part, b"q" * part, b"r" * 1000]
    mp = s3.create_multipart_upload(Bucket="trace", Key="multi")
    parts = []
    for i, d in enumerate(parts_data, 1):
        r = s3.upload_part(Bucket="trace", Key="multi", PartNumber=i, UploadId=mp["UploadId"], Body=d)
        parts.append({"ETag": r["ETag"], "PartNumber": i})
    s3.complete_multipart_upload(Bucket="trace", Key="multi", UploadId=mp["UploadId"],
                                 MultipartUpload={"Parts": parts})
    got = s3.get_object(Bucket="trace", Key="multi")["Body"].read()
    assert got == b"".join(parts_data), "multipart"
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket="trace")["Contents"])
    assert keys == ["big-3m", "multi", "small-1"], keys
    print("rgw_s3: ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
